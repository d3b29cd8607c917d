"""The acceptance rule, written once: temperature, the sampler, the residual and accept_reject.
Its twin in the page is static/js/rule.js.

Notation (Leviathan et al. 2023, arXiv 2211.17192): p = main (target) model, q = drafter.
"""
import bisect
import math

import torch
import torch.nn.functional as F

# The smallest temperature above 0 that sampling accepts: a floor chosen far above the T where
# logits / T overflows float32 (at T = 1e-45 the softmax is NaN and the sampler emits garbage).
# Use T = 0 for greedy.
MIN_TEMPERATURE = 0.01


def check_temperature(temperature: float) -> float:
    if not (temperature == 0 or MIN_TEMPERATURE <= temperature < math.inf):  # NaN fails both
        raise ValueError(f"temperature must be 0 (greedy) or a finite number >= {MIN_TEMPERATURE}, "
                         f"got {temperature}")
    return temperature


def probs_from_logits(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """Temperature divides the logits; T = 0 is a one-hot at the argmax (greedy)."""
    check_temperature(temperature)
    if temperature == 0:
        return F.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    return torch.softmax(logits if temperature == 1 else logits / temperature, dim=-1)


def sample(probs: torch.Tensor, generator: torch.Generator | None = None) -> int:
    """One token id drawn from a probability vector, by inverting its CDF on the host (three
    small ops; torch.multinomial costs about three times as much per call on the CPU)."""
    cdf = probs.cumsum(0).tolist()
    u = torch.rand(1, generator=generator, dtype=torch.float64, device=probs.device).item()
    i = bisect.bisect_right(cdf, u * cdf[-1])
    if i == len(cdf):  # rounding put u at the very top: take the last token with any mass
        i = len(cdf) - 1
        while i > 0 and cdf[i] == cdf[i - 1]:
            i -= 1
    return i


def uniforms(n: int, generator: torch.Generator | None = None, dtype: torch.dtype = torch.float32,
             device: torch.device | str = "cpu") -> torch.Tensor:
    return torch.rand(n, generator=generator, dtype=dtype, device=device)


def residual(p_i: torch.Tensor, q_i: torch.Tensor) -> torch.Tensor:
    """normalize(max(0, p - q)); falls back to p when the residual mass is only rounding."""
    r = (p_i - q_i).clamp_(min=0)
    mass = float(r.sum())
    return p_i if mass <= 1e-12 else r / mass


def accept_reject(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor, generator: torch.Generator | None = None,
                  trace: dict | None = None) -> tuple[int, int]:
    """Verify γ drafts. p: [γ+1, V] main distributions, q: [γ, V] draft distributions,
    drafts: [γ] the draft's tokens. Draft i is accepted when u_i < min(1, p_i(d_i)/q_i(d_i)),
    left to right; at the first rejection the next token comes from the residual
    normalize(max(0, p_i - q_i)); if all γ pass, a bonus token comes from p_γ.
    Returns (n_accepted, next_token). With `trace` (a dict), records u, p(d), q(d)."""
    gamma = drafts.shape[0]
    index = drafts.to(p.device)[:, None]
    p_d = p[:gamma].gather(1, index)[:, 0].tolist()
    q_d = q.gather(1, index)[:, 0].tolist()
    u = uniforms(gamma, generator, p.dtype, p.device).tolist()
    if trace is not None:
        trace.update(u=u, p_draft=p_d, q_draft=q_d)
    # page listing: rule (chapter/listings.py shows the lines down to its end on the page)
    n = 0
    while n < gamma and q_d[n] > 0 and u[n] * q_d[n] < p_d[n]:  # accept while u < p(d)/q(d)
        n += 1
    if n == gamma:
        return n, sample(p[gamma], generator)  # every draft passed: a bonus token from p
    return n, sample(residual(p[n], q[n]), generator)  # first rejection: redraw from max(0, p - q)
    # end page listing
