"""Safe k-anonymization after Poisson sampling (seed 002, Li, Qardaji, Su): SPEC T15 (strongly safe) and T16
(ε₁-safe).  d(k, β, ε) is a maximum over n of binomial tails, not a closed form: the float kernel is the
hand-written ``numeric.kanon`` (exact integer decisions, proof-stopped scan); the record carries the SPEC
form for LaTeX and the identities the kernel relies on as reductions."""
from __future__ import annotations

import sympy as sp

from .core import Domain, Output, Parameter, Reduction, Theorem, register
from .functions import EPSILON, epsilon, k, n

beta = sp.Symbol("beta", positive=True)
epsilon1 = sp.Symbol("varepsilon_1", nonnegative=True)
j = sp.Symbol("j", nonnegative=True, integer=True)
lam = sp.Symbol("lambda", positive=True)
m_prime = sp.Symbol("m'", positive=True, integer=True)

K_PARAM = Parameter("k", k, Domain(1.0, float("inf"), hi_open=True, integer=True),
                    "anonymity parameter k (classes with fewer than k sampled tuples are suppressed)")
BETA = Parameter("beta", beta, Domain(0.0, 1.0, lo_open=True, hi_open=True),
                 "Poisson sampling rate β (each tuple kept independently with probability β)")
EPSILON1 = Parameter("epsilon1", epsilon1, Domain(0.0, float("inf"), hi_open=True),
                     "ε₁ of the DP algorithm that chooses the generalisation scheme on the UNSAMPLED data")


def gamma_of(e: sp.Expr = epsilon) -> sp.Expr:
    """γ = (e^ε − 1 + β)/e^ε."""
    return (sp.exp(e) - 1 + beta) / sp.exp(e)


class MaxOverN(sp.Function):
    """max_{n ≥ n_m} of its first argument (a function of ``n``); printed as in the paper."""

    nargs = 2

    def _latex(self, printer) -> str:
        body, start = self.args
        return rf"\max_{{n \ge {printer._print(start)}}} {printer._print(body)}"


def d_expr(e: sp.Expr = epsilon) -> sp.Expr:
    """SPEC d(k, β, ε) = max_{n ≥ n_m} Σ_{j > γn}^{n} C(n,j) β^j (1 − β)^{n−j}, n_m = ⌈k/γ − 1⌉."""
    g = gamma_of(e)
    tail = sp.Sum(sp.binomial(n, j) * beta ** j * (1 - beta) ** (n - j), (j, sp.floor(g * n) + 1, n))
    return MaxOverN(tail, sp.ceiling(k / g - 1))


_gamma = gamma_of()
_q = 1 - _gamma  # (1 − β)e^{−ε}
_kl = _gamma * sp.log(_gamma / beta) + (1 - _gamma) * sp.log((1 - _gamma) / (1 - beta))
_lambda_star = sp.log(_gamma * (1 - beta) / (beta * (1 - _gamma)))
_eps_min = -sp.log(1 - beta)

_common_reductions = (
    Reduction("at ε = −ln(1 − β), γ = β(2 − β) (γn can be an integer: the strict j > γn matters)",
              _gamma, beta * (2 - beta), ((epsilon, _eps_min),)),
    Reduction("the minimisers of the inverse query: at ε = ln((1 − β)n/(n − m')), γ = m'/n exactly",
              _gamma, m_prime / n, ((epsilon, sp.log((1 - beta) * n / (n - m_prime))),)),
    Reduction("n − γn = n(1 − β)e^{−ε}: j > γn ⇔ n − j < n(1 − β)e^{−ε} (the kernel's exact predicate)",
              n - _gamma * n, n * (1 - beta) * sp.exp(-epsilon)),
    Reduction("KL(γ‖β) = γ ln(γ/β) − (1 − γ)ε (the form the kernel's stopping rule evaluates)",
              _kl, _gamma * sp.log(_gamma / beta) - _q * epsilon),
    Reduction("Chernoff at λ* = ln(γ(1 − β)/(β(1 − γ))): e^{−λγ}(1 − β + βe^λ) = e^{−KL(γ‖β)} "
              "(so each tail for n ≥ n_m is ≤ exp(−n·KL), which stops the scan)",
              sp.exp(-lam * _gamma) * (1 - beta + beta * sp.exp(lam)), sp.exp(-_kl),
              ((lam, _lambda_star),)),
)

T15 = register(Theorem(
    id="T15",
    name="Strongly-safe k-anonymization, sampled",
    relation="add/remove",
    parameters=(K_PARAM, BETA, EPSILON),
    outputs=(
        Output("delta", d_expr(), "up", None, kernel="numeric.kanon:delta", latex_name=r"\delta",
               at_most_one=True),
    ),
    provenance="source",
    citation="Li, Qardaji, Su 2012 (arXiv:1101.2604), Thm 5",
    tightness="upper bound, not tight (the exact worst-case δ is 1.4%–100% of d)",
    statement="Poisson sampling at rate β followed by any strongly-safe k-anonymization (a data-independent "
              "generalisation g, then every generalised value occurring fewer than k times removed) is "
              "(ε, δ)-DP for 0 < β < 1 and ε ≥ −ln(1 − β), with δ = d(k, β, ε) = max_{n ≥ n_m} "
              "Σ_{j > γn}^{n} C(n,j) β^j (1 − β)^{n−j}, γ = (e^ε − 1 + β)/e^ε, n_m = ⌈k/γ − 1⌉. "
              "Precondition: ε ≥ −ln(1 − β) (decided exactly).",
    notes="The maximum is not always at n_m (it can be 20+ values of n later); the kernel stops the scan with "
          "the Chernoff bound S(n) ≤ exp(−n·KL(γ‖β)) and decides j > γn and n_m exactly for the given doubles. "
          "d is a right-continuous step function of ε with jumps where γ = m'/n, i.e. at "
          "ε = ln((1 − β)n/(n − m')).",
    reductions=_common_reductions,
    public=("safe_k_anonymization_delta", "safe_k_anonymization_min_k", "safe_k_anonymization_min_epsilon",
            "safe_k_anonymization_max_beta"),
))

T16 = register(Theorem(
    id="T16",
    name="ε₁-safe k-anonymization, sampled",
    relation="add/remove",
    parameters=(K_PARAM, BETA, EPSILON, EPSILON1),
    outputs=(
        Output("delta", d_expr(epsilon - epsilon1), "up", None, kernel="numeric.kanon:delta_eps1",
               latex_name=r"\delta", at_most_one=True),
    ),
    provenance="source",
    citation="Li, Qardaji, Su 2012 (arXiv:1101.2604), Thm 6",
    tightness="upper bound, not tight; FALSE if the scheme is chosen on the sample (see notes)",
    statement="PRECONDITION: the generalisation scheme is chosen by an ε₁-DP algorithm run on the UNSAMPLED "
              "data. Then Poisson sampling at rate β followed by k-anonymization under that scheme is "
              "(ε, δ)-DP for ε ≥ −ln(1 − β) + ε₁, with δ = d(k, β, ε − ε₁) (d of T15).",
    notes="If the scheme is chosen on the sample, the bound is false: 200 groups of k − 1 = 2 tuples, scheme i "
          "merges the target tuple with group i, the exponential mechanism (ε₁ = 2, utility = sampled size "
          "of the merged class) picks i on the sample; at k = 3, β = 0.5, ε = 6 the exact δ is 0.2663 "
          "against d(3, 0.5, 4) = 0.125 (executable check in proofs_checks.kanon_checks).",
    reductions=(
        Reduction("ε₁ = 0 is T15", d_expr(epsilon - epsilon1), d_expr(), ((epsilon1, 0),)),
        Reduction("at ε = ε₁ − ln(1 − β), γ(ε − ε₁) = β(2 − β)", gamma_of(epsilon - epsilon1),
                  beta * (2 - beta), ((epsilon, epsilon1 + _eps_min),)),
    ),
    public=("eps1_safe_k_anonymization_delta",),
))
