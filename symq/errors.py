"""The exceptions symq raises.
Every message names the class, server or value at fault and, where there is one, the remedy.
The command line turns a :class:`SymqError` into one line on stderr and exit status 2.
"""

__all__ = ["SymqError", "ModelError", "ArgumentTypeError", "UnstableModelError",
           "UnknownModelError", "UnsupportedError", "VerificationError", "TooLargeError"]


class SymqError(Exception):
    """Base class of every error symq raises on purpose."""


class ModelError(SymqError, ValueError):
    """A model or a value given for it is invalid (bad rate, unknown name, malformed file)."""


class ArgumentTypeError(ModelError, TypeError):
    """An argument of a type symq does not take (``symq.load(None)``, a list where a rate goes).

    The message names the argument, the type given and the types expected. It is a
    :class:`ModelError` (one line and exit status 2 on the command line) and a ``TypeError``
    (what Python code catching a wrong type expects).
    """


class UnknownModelError(ModelError):
    """A built-in model name that symq does not know, or a model file that does not exist."""


class UnstableModelError(ModelError):
    """The rates violate the stability condition, so no stationary law exists."""


class UnsupportedError(SymqError, ValueError):
    """A quantity or discipline that symq cannot compute for this model (yet)."""


class VerificationError(SymqError):
    """A derived formula failed its check against an independent route."""


class TooLargeError(SymqError, ValueError):
    """An input whose estimated work or size is past a limit of :mod:`symq.limits`.

    The message says what is too large, the estimate, the limit and the option that raises it.
    """
