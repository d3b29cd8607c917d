"""The library a reader would reach for: our checkpoints as Hugging Face `transformers` models,
decoded by transformers' own `generate` — plain sampling, assisted generation with the converted
draft model, and prompt lookup — with the same counters as our decoders.

    pip install -e '.[peer]'   # transformers, pinned; `make measure` installs it

Our model is LLaMA-shaped (RMSNorm, RoPE on two halves, SwiGLU, tied head, no biases), so the
weights map one to one. `LlamaForCausalLM` attends to the whole prefix (our recompute mode within
one window); `MistralForCausalLM` with `sliding_window = block_size` keeps the last block_size
positions, as our kv-cache mode does. The MTP head has no transformers counterpart.
"""
import time

import torch

from experiments.speculative import Result

PEER_METHODS = ("plain", "assisted", "lookup")
NAME = "transformers"  # the peer as the results name it: an engine of its own in a timed row
LABEL = {"zh": "transformers 库", "en": "transformers library"}


def available():
    """The installed transformers version, or None."""
    try:
        import transformers
    except ImportError:
        return None
    return transformers.__version__


def hf_config(cfg, sliding):
    from transformers import LlamaConfig, MistralConfig
    common = dict(vocab_size=cfg.vocab_size, hidden_size=cfg.n_embd, intermediate_size=cfg.mlp_hidden,
                  num_hidden_layers=cfg.n_layer, num_attention_heads=cfg.n_head, num_key_value_heads=cfg.n_head,
                  head_dim=cfg.head_dim, hidden_act="silu", max_position_embeddings=1 << 14, rms_norm_eps=1e-5,
                  tie_word_embeddings=True, rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
                  bos_token_id=None, eos_token_id=None, pad_token_id=None, attention_dropout=0.0)
    if sliding:
        return MistralConfig(sliding_window=cfg.block_size, **common)
    return LlamaConfig(attention_bias=False, mlp_bias=False, **common)


def to_transformers(model, sliding=True):
    """A transformers model with model's weights (the MTP head left out): Mistral with a
    block_size sliding window by default, Llama (no window) with sliding=False."""
    from transformers import LlamaForCausalLM, MistralForCausalLM
    cfg = model.cfg
    hf = (MistralForCausalLM if sliding else LlamaForCausalLM)(hf_config(cfg, sliding))
    C, H = cfg.n_embd, cfg.mlp_hidden
    state = {"model.embed_tokens.weight": model.tok_emb.weight, "model.norm.weight": model.norm.weight,
             "lm_head.weight": model.tok_emb.weight}
    for i, block in enumerate(model.blocks):
        q, k, v = block.attn.wqkv.weight.split(C)  # rows: every head's q, then k, then v
        gate, up = block.mlp.w13.weight.split(H)
        prefix = f"model.layers.{i}."
        state.update({prefix + "input_layernorm.weight": block.attn_norm.weight,
                      prefix + "post_attention_layernorm.weight": block.mlp_norm.weight,
                      prefix + "self_attn.q_proj.weight": q, prefix + "self_attn.k_proj.weight": k,
                      prefix + "self_attn.v_proj.weight": v, prefix + "self_attn.o_proj.weight": block.attn.wo.weight,
                      prefix + "mlp.gate_proj.weight": gate, prefix + "mlp.up_proj.weight": up,
                      prefix + "mlp.down_proj.weight": block.mlp.w2.weight})
    hf.load_state_dict({key: value.detach().clone() for key, value in state.items()}, strict=True)
    # batch 1 never pads, but generate() wants a pad id; id 0 is "\n" here, so peer_decode always
    # passes an explicit attention mask (else every newline of the prompt would be masked out)
    hf.generation_config.pad_token_id = 0
    return hf.to(model.tok_emb.weight.dtype).eval()


class ForwardCounter:
    """Counts and times a model's forward calls (forward pre- and post-hooks)."""

    def __init__(self, model):
        self.calls, self.seconds = 0, 0.0
        model.register_forward_pre_hook(self.before)
        model.register_forward_hook(self.after)

    def before(self, module, args):
        self.t0 = time.perf_counter()

    def after(self, module, args, output):
        self.calls += 1
        self.seconds += time.perf_counter() - self.t0

    def reset(self):
        self.calls, self.seconds = 0, 0.0


def generation_kwargs(method, n, temperature, gamma, assistant):
    """What a reader would pass to generate(): max/min_new_tokens = n (there is no end token);
    top_k=0 and top_p=1 so the 65-char vocabulary is never cut at T > 0."""
    kwargs = dict(max_new_tokens=n, min_new_tokens=n, do_sample=temperature > 0)
    if temperature > 0:
        kwargs.update(temperature=temperature, top_k=0, top_p=1.0)
    if method == "assisted":
        # exactly gamma drafts per round: a constant schedule and no confidence cut-off
        assistant.generation_config.num_assistant_tokens = gamma
        assistant.generation_config.num_assistant_tokens_schedule = "constant"
        assistant.generation_config.assistant_confidence_threshold = 0.0
        kwargs["assistant_model"] = assistant
    elif method == "lookup":
        kwargs["prompt_lookup_num_tokens"] = gamma
    return kwargs


def peer_decode(method, hf_main, hf_draft, counters, prompt, n, temperature=1.0, gamma=3, seed=0):
    """transformers' generate() on our weights; returns a Result with the forward counts.
    generate() samples from torch's global generator, seeded here."""
    if method not in PEER_METHODS:
        raise ValueError(f"method must be one of {PEER_METHODS}, got {method!r}")
    for counter in counters.values():
        counter.reset()
    torch.manual_seed(seed)
    kwargs = generation_kwargs(method, n, temperature, gamma, hf_draft)
    ids = torch.tensor([prompt])
    out = hf_main.generate(ids, attention_mask=torch.ones_like(ids), **kwargs)
    tokens = out[0, len(prompt):].tolist()
    drafts = counters["draft"].calls if method == "assisted" else 0
    return Result(tokens, counters["main"].calls, draft_forwards=drafts,
                  main_forward_s=counters["main"].seconds,
                  draft_forward_s=counters["draft"].seconds if method == "assisted" else 0.0)


GENERATE_METHOD = {"plain": "plain", "draft": "assisted", "lookup": "lookup"}  # our family -> generate's way


def decoder(spec, hf_models, prompt, n, temperature=1.0):
    """fn(seed) -> Result of generate() for one of our configurations (methods.Spec): plain
    decoding, the draft model (assisted generation) or prompt lookup, γ drafts per round."""
    if spec.method not in GENERATE_METHOD:
        raise ValueError(f"transformers' generate has no counterpart of {spec.method}: "
                         f"one of {', '.join(GENERATE_METHOD)}")
    hf_main, hf_draft, counters = hf_models
    return lambda seed: peer_decode(GENERATE_METHOD[spec.method], hf_main, hf_draft, counters, prompt, n, temperature,
                                    spec.gamma or 0, seed)


def peer_models(main, draft):
    """(hf_main, hf_draft, counters) for peer_decode."""
    from transformers.utils import logging
    logging.set_verbosity_error()  # generate() warns about its own defaults on every call
    hf_main, hf_draft = to_transformers(main), to_transformers(draft)
    return hf_main, hf_draft, {"main": ForwardCounter(hf_main), "draft": ForwardCounter(hf_draft)}
