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
        "runs.*.train_wall_s:num",
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
}
