"""sympy records of every theorem (reference: docs/theorems.md, generated from them): the single source of truth
for ampbounds."""
from .core import Constraint, Domain, Output, Parameter, Reduction, Theorem
from .functions import expand_special
from .registry import get, ids, theorems

__all__ = ["Constraint", "Domain", "Output", "Parameter", "Reduction", "Theorem", "expand_special", "get",
           "ids", "theorems"]
