"""The contract between experiments/ and the page: which results files exist and which fields
the page reads from each. `python build/build.py` checks every file against this before it
renders anything; a missing file or field stops the build with a message naming both.

Paths are dotted; `*` means every key of an object or every item of a list. A path may end in
`:type` (num, int, str, list, obj, bool) to check the value's type as well.

Probabilities are float64 values that sum to 1; `p` is always the main (target) model and `q`
the draft (Leviathan et al. 2023). Every file carries `meta`: where and how it was measured.
"""

META = ["meta.device:str", "meta.device_type:str", "meta.threads:int", "meta.torch:str",
        "meta.date:str", "meta.git_commit:str", "meta.command:str", "meta.seeds:list"]

SCHEMA = {
    # models.json (experiments/measure.py measure_models): every trained run and the data.
    "models.json": META + [
        "data.name:str", "data.chars:int", "data.vocab_size:int", "data.sha256:str",
        "runs.*.kind:str",               # main_mtp | control | draft
        "runs.*.seed:int", "runs.*.mtp_weight:num", "runs.*.steps:int",
        "runs.*.params:int",             # next-token model alone (MTP head excluded)
        "runs.*.config.n_layer:int", "runs.*.config.n_embd:int", "runs.*.config.block_size:int",
        "runs.*.val_loss_full.main:num", # mean loss over the whole val split, 64-char windows
        "runs.*.val_loss_train_log.main:num",  # last eval of the training run (fixed val batches)
        "runs.*.train_wall_s:num", "runs.*.batch_size:int", "runs.*.config.mlp_hidden:int",
        "runs.*.config.vocab_size:int",
        "mtp_parts.hidden_norm:int", "mtp_parts.embed_norm:int", "mtp_parts.proj:int",
        "mtp_parts.block:int", "mtp_depth:int", "mtp_head_params:int",
    ],
    # causal.json (measure_causal): section ① — causal masking, kv-cache, one verify step.
    "causal.json": META + [
        "prefix_check.text:str", "prefix_check.n_short:int", "prefix_check.n_full:int",
        "prefix_check.max_abs_diff:num",      # max |Δlogit| over the first 56 positions (float32)
        "prefix_check.max_abs_diff_float64:num",  # the same with the model in float64
        "prefix_check.max_abs_logit:num",
        "kvcache_check.n_tokens:int", "kvcache_check.max_abs_diff:num",
        "kvcache_check.max_abs_diff_float64:num",
        "verify_example.context:str",         # 8 real val chars
        "verify_example.gamma:int",
        "verify_example.drafts:list",         # the draft model's real proposals, one char each
        "verify_example.p_draft:list", "verify_example.q_draft:list", "verify_example.u:list",
        "verify_example.n_accepted:int", "verify_example.next_char:str",
        "verify_example.next_kind:str",       # resample | bonus
        "verify_example.rows.*.char:str", "verify_example.rows.*.role:str",
        "verify_example.rows.*.top:list",     # [[char, p], ...] next-char distribution per row
        "rollback.gamma:int", "rollback.n_accepted:int", "rollback.length_before:int",
        "rollback.length_after_verify:int", "rollback.length_after_rollback:int",
        "rollback.max_abs_diff_vs_rebuilt:num", "rollback.equal:bool",
    ],
    # acceptance.json (measure_acceptance): section ② — the rule on real positions.
    "acceptance.json": META + [
        "vocab:list", "draws:int", "selection:str",
        "positions.*.kind:str",               # high | typical | low | overweight | uncertain
        "positions.*.context:str", "positions.*.p:list", "positions.*.q:list",
        "positions.*.alpha_theory:num",       # Σ min(p, q)
        "positions.*.counts:list",            # output histogram of the draws through accept_reject
        "positions.*.accept_rate:num", "positions.*.tv_out_p:num", "positions.*.tv_q_p:num",
        "positions.*.chi2_stat:num", "positions.*.chi2_dof:int", "positions.*.chi2_p:num",
    ],
    # divergence_sweep.json (measure_divergence_sweep): α and KL along the draft's training.
    "divergence_sweep.json": META + [
        "n_positions:int", "snapshots.*.step:int", "snapshots.*.alpha_mean:num",
        "snapshots.*.kl_mean:num", "snapshots.*.tv_mean:num",
        "snapshots.*.accept_rate_sampled:num", "snapshots.*.draft_val_loss:num",
        "max_abs_alpha_minus_one_minus_tv:num",
    ],
    # ledger.json (measure_ledger): every decoder from "ROMEO:\n", both modes, timed.
    "ledger.json": META + [
        "prompt:str", "n_chars:int", "temperature:num", "repeats:int", "threads:int",
        "warmup:int", "seeds:list", "forward_costs.*.seconds.draft:num",
        "forward_costs.*.seconds.mtp_head:num", "forward_costs.*.seconds.verify:obj",
        "forward_costs.recompute.verify_over_main:obj",
        "rows.*.alpha",                       # measured per-draft acceptance; null for plain
        "rows.*.wall_s.n:int", "rows.*.speedup_runs.n:int", "rows.*.overhead_per_main_forward_s:num",
        "forward_costs.kvcache.seconds.main:num", "forward_costs.kvcache.c:num",
        "forward_costs.kvcache.c_mtp:num", "forward_costs.kvcache.verify_over_main:obj",
        "forward_costs.recompute.seconds.main:num", "forward_costs.recompute.c:num",
        "rows.*.method:str",                  # plain | draft | mtp
        "rows.*.mode:str",                    # recompute | kvcache
        "rows.*.gamma:int",                   # 0 for plain
        "rows.*.main_forwards:num", "rows.*.draft_forwards:num", "rows.*.tokens_per_main:num",
        "rows.*.wall_s.median:num", "rows.*.wall_s.min:num", "rows.*.wall_s.max:num",
        "rows.*.speedup:num",                 # median plain wall / median wall, same mode
        "rows.*.speedup_runs.min:num", "rows.*.speedup_runs.max:num",
        "rows.*.forward_time_s:num",          # the row's forwards at the measured prices
        "rows.*.overhead_s:num", "rows.*.repeats:int",
        "greedy_check.*.method:str", "greedy_check.*.mode:str", "greedy_check.*.gamma:int",
        "greedy_check.*.chars_compared:int", "greedy_check.*.equal:bool",
    ],
    # gamma_sweep.json (measure_ledger): the draft model's rows, γ in {1, 2, 3, 4, 6, 8}.
    "gamma_sweep.json": META + [
        "gammas:list", "c.kvcache:num", "c.recompute:num",
        "repeats:int", "forward_costs.*.seconds.main:num", "forward_costs.*.seconds.draft:num",
        "rows.*.gamma:int", "rows.*.mode:str", "rows.*.alpha:num", "rows.*.tokens_per_main:num",
        "rows.*.tokens_per_main_expected:num",  # (1 - α^{γ+1}) / (1 - α) at the measured α
        "rows.*.speedup:num", "rows.*.speedup_runs.min:num", "rows.*.speedup_runs.max:num",
        "rows.*.speedup_theory:num",          # Theorem 3.8 with the measured α and c
        "rows.*.run_lengths:list",            # rounds with 0..γ drafts accepted
        "rows.*.burst.expected:list",         # the same under the geometric law at the row's α
        "rows.*.burst.chi2:num", "rows.*.burst.dof:int",
        "burst_pooled.*.chi2:num", "burst_pooled.*.dof:int", "burst_pooled.*.p:num", "burst_pooled.*.rows:int",
    ],
    # mtp.json (measure_mtp): the MTP head over seeds.
    "mtp.json": META + [
        "seeds:list", "lambda:num", "depth:int",
        "params.hidden_norm:int", "params.embed_norm:int", "params.proj:int", "params.block:int",
        "params.shared_embedding_head:int", "params.shared_final_norm:int", "params.main_blocks:list",
        "params.mtp_head_total:int", "params.main_total:int",
        "curves:obj", "val_loss.main_mtp.values:list", "val_loss.main_mtp.mean:num",
        "val_loss.control.values:list", "val_loss.mtp_head.values:list", "val_loss.draft.values:list",
        "verdict.mean_difference:num", "verdict.n_seeds:int",
        "alpha.mtp.mean:num", "alpha.draft.mean:num", "alpha.mtp_val.mean:num", "alpha.draft_val.mean:num",
        "sample.text:str", "sample.steps.*.emitted:list", "sample.steps.*.kinds:list",
        "sample.prompt:str", "sample.n_chars:int", "sample.temperature:num", "sample.seed:int",
        "sample.main_forwards:int", "sample.accepted:int", "sample.proposed:int",
        "sample.steps.*.accepted:bool", "verdict.differences:list", "val_loss.control.mean:num",
        "val_loss.mtp_head.mean:num", "val_loss.draft.mean:num",
    ],
}
