class TokenQueue: pass
class ClosedTokenNetwork: pass
