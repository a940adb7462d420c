"""placeholder"""
from .models import RoutingModel, symmetric_jsq, asymmetric_jsq, sed
from .hybrid import solve, CompensationResult
