"""The contract between experiments/ and the page: which results files exist and which fields
the page reads from each (the templates and static/js/*.js). `python -m chapter.build` checks every
file against this before it renders anything; a missing file or field stops the build with a
message naming both. A field the page reads must be declared here.

Paths are dotted; `*` means every key of an object or every item of a list. A path may end in
`:type` (num, int, str, list, obj, bool) to check the value's type as well; `family` and `engine`
are strings that name a family or an engine registry.json declares (the page prints every such name
through the registry's labels). A `+` after the type asks for a value above 0: a time, a size, a
count or a price that the page divides by. A part ending in `?` is optional: `x?` may be absent or
null (what follows is checked where it is there), `*?` may be empty.

A file that breaks this contract stops the build with a ResultsError naming the file and the field.

Probabilities are float64 values that sum to 1; `p` is always the main (target) model and `q`
the draft (Leviathan et al. 2023). Every file carries `meta`: where and how it was measured.
The files are written by experiments/measure/<module>.py, named below.
"""


class ResultsError(Exception):
    """A results file the page cannot be built from: missing, unreadable, not JSON, or breaking the
    contract below. Its message names the file (and the field): `<file>.json: field 'a.b' ...`."""


META = ["meta.device:str", "meta.device_type:str",
        "meta.cpu?.family:str", "meta.cpu?.model:str",  # the host CPU (jsonio.cpu_details); older files lack it
        "meta.threads:int", "meta.torch:str",
        "meta.date:str", "meta.command:str",
        "meta.git_commit:str",     # the commit checked out when the run started
        "meta.git_dirty?:bool",    # tracked files differed from that commit at the start (null: no git)
        "meta.seeds:list", "meta.seeds.*:int",  # the model seeds this file used (the first one, or all)
        ]

MEAN_STD = ["values:list", "mean:num", "std?:num"]  # stats.mean_std; std is null for one seed
SPREAD = ["median:num+", "min:num+", "max:num+", "n:int+"]  # timing.summary over the repeats


def each(prefix, fields):
    return [f"{prefix}.{field}" for field in fields]


# a speedup of the harness against fresh `python -m experiments.generate` processes of the same two
# decoders (rows.fresh_check); every file that holds one, the page prints it (macros fresh_check)
FRESH = ["engine:engine", "temperature:num", "family:family", "size:int", "scale:num+", "repeats:int+",
         "harness_speedup:num+", "fresh_speedup:num+",
         "tolerance:num",                     # the fraction they should agree within
         "agrees:bool"]


COSTS = [  # ledger.forward_costs: seconds per forward, per mode (*: recompute | kvcache)
    "forward_costs.*.seconds.main:num+", "forward_costs.*.seconds.draft:num+",
    "forward_costs.*.seconds.mtp_head:num+",
    "forward_costs.*.seconds.verify.*:num+",  # main verifying 1 + γ tokens, keys "1".."8"
    "forward_costs.*.c:num+",                 # draft / main: the median repeat's ratio (costs.median_pair)
    "forward_costs.*.c_pair.draft:num+",      # the two times of that repeat: c = draft / main exactly
    "forward_costs.*.c_pair.main:num+",
    "forward_costs.*.c_mtp:num+",             # MTP head / main, the same way
    "forward_costs.*.c_mtp_pair.mtp_head:num+",
    "forward_costs.*.c_mtp_pair.main:num+",
    "forward_costs.*.verify_over_main.*:num+",
    "forward_costs.*.verify_over_main_spread.*.median:num",  # the same ratio's median, min and max over the repeats
    "forward_costs.*.verify_over_main_spread.*.min:num", "forward_costs.*.verify_over_main_spread.*.max:num",
    "forward_costs.*.verify_over_main_spread.*.n:int",
]

TIMED_ROW = [  # rows.timed_row: one configuration against plain decoding in one run, engine, scale and temperature
    "family:family",               # plain | draft | mtp | ngram | lookup | medusa | eagle | lookahead
    "shape:str", "size:int",       # chain (size γ) | tree (size = nodes)
    "engine:engine",               # eager | compiled | aot | native, or the peer library (transformers)
    "scale:num+", "temperature:num", "repeats:int+",
    "verdict:str",                 # faster | slower | unclear: every paired repeat on one side of 1×?
    "tokens_per_main:num+", "accepted_per_proposed?:num", "accepted_per_main:num", "main_forwards:num+",
    "alpha?:num",                  # chains: accepted / (accepted + rejected), the ledger's per-draft α
    *each("wall_s", SPREAD), "speedup:num+", *each("speedup_runs", SPREAD),
    "parts_s.main_forwards:num+", "parts_s.draft_forwards:num", "parts_s.other:num",
    # the median-wall run per round, over plain decoding's seconds per forward (its median-wall run):
    "verify_over_main:num+",       # the main model's verify forward
    "drafter_per_round:num",       # the drafter
    "other_per_round?:num",        # the rest (sampling, the rule, Python)
    "round_total:num+",            # their sum
    "plain_per_char:num+",         # plain decoding's median run per character, in the same unit (1 + its rest)
    "speedup_from_parts:num+",     # tokens_per_main × plain_per_char / round_total: the two median runs' ratio
    "greedy_equal?:bool",          # T = 0 only: every run wrote plain greedy decoding's text
    "c?:num",                      # drafter seconds per draft, same run and scale
    "speedup_theory?:num",         # Theorem 3.8 at the row's α and c (chains)
]

LEDGER_SETUP = [
    "prompt:str", "n_chars:int+", "temperature:num", "repeats:int+", "warmup:int", "threads:int",
    "seeds:list",                             # the sampling seeds of the repeats (not model seeds)
    "gamma_max:int+",                         # γmax, the longest draft chain measured
]

LEDGER_ROW = [  # ledger.py ledger_row: one method in one mode and engine
    "method:family",               # plain | draft | mtp
    "mode:str",                    # recompute | kvcache
    "engine:engine",               # eager | compiled (experiments/engine.py)
    "gamma:int",                   # 0 for plain
    "repeats:int+",
    "main_forwards:num+", "draft_forwards:num", # per run, mean over the repeats
    "draft_forwards_per_main:num", # drafter forwards per main forward (per round)
    "tokens_per_main:num+",
    "alpha?:num",                  # measured per-draft acceptance; null for plain
    *each("wall_s", SPREAD), "wall_s_runs:list",
    "speedup:num+",                # median plain wall / median wall, same mode
    *each("speedup_runs", SPREAD), # plain / row, repeat by repeat (same seed)
    # the median-wall repeat taken apart, every part measured inside that run (≥ 0, sum = wall)
    "parts_s.main_forwards:num+",  # seconds inside the main model's forwards
    "parts_s.draft_forwards:num",  # seconds inside the drafter's (draft model or MTP head)
    "parts_s.other:num",           # the rest: sampling, acceptance rule, Python loop
    "parts_share.main_forwards:num", "parts_share.draft_forwards:num",
    "parts_share.other:num",       # each part / that run's wall time
    "parts_repeat:int",            # which repeat (index into wall_s_runs)
    "parts_main_forwards?:int",    # that repeat's own main forwards (absent in files measured before it was kept)
    "parts_how:str",               # how the parts were measured, in one sentence
    "forward_time_s:num",          # parts_s.main_forwards + parts_s.draft_forwards
    "overhead_s:num",              # parts_s.other
    "overhead_per_main_forward_s:num",  # parts_s.other / that run's main forwards
    "tokens_per_main_expected?:num",  # (1 - α^{γ+1}) / (1 - α); not for plain
    "speedup_theory?:num",         # Theorem 3.8 at the row's α and c; not for plain
    "c_used?:num",
    "verify_over_main?:num",       # rₖ at k = γ + 1, timed back to back before the runs (forward_costs), not in the loop
    "run_lengths?:list",           # rounds with 0..γ drafts accepted
    "burst?.expected:list", "burst?.chi2:num", "burst?.dof:int",
    "burst?.p?:num",               # null at γ = 1 (no degrees of freedom)
]

SCHEMA = {
    # models.json (models.py): every trained run and the data.
    "models.json": META + [
        "data.name:str", "data.file:str", "data.chars:int", "data.vocab_size:int", "data.sha256:str",
        "data.train_chars:int", "data.val_chars:int",
        "runs.*.kind:str",               # main_mtp | control | draft
        "runs.*.seed:int",
        "runs.*.mtp_weight:num",         # λ, read from the checkpoint
        "runs.*.steps:int",
        "runs.*.params:int+",            # next-token model alone (MTP head excluded)
        "runs.*.params_total:int+",
        "runs.*.config.n_layer:int", "runs.*.config.n_embd:int", "runs.*.config.n_head:int",
        "runs.*.config.block_size:int", "runs.*.config.mlp_hidden:int", "runs.*.config.vocab_size:int",
        "runs.*.config.mtp:bool",
        "runs.*.val_loss_full.main:num", # mean loss over the whole val split, 64-char windows
        "runs.*.val_loss_full.mtp?:num", # the MTP head's, main_mtp runs only
        "runs.*.val_loss_train_log.main:num",  # last eval of the training run (fixed val batches)
        "runs.*.val_loss_train_log.mtp?:num",
        "runs.*.train_wall_s:num", "runs.*.train_device:str", "runs.*.train_threads:int",
        "runs.*.batch_size:int",
        "mtp_parts.hidden_norm:int", "mtp_parts.embed_norm:int", "mtp_parts.proj:int",
        "mtp_parts.block:int", "mtp_parts.shared_embedding_head:int", "mtp_parts.shared_final_norm:int",
        "mtp_parts.main_blocks:list", "mtp_depth:int", "mtp_head_params:int",
        "summary.seed:int",                    # the seed the summary describes (the first)
        "summary.draft_params_fraction:num",   # draft params / main params (next-token parts)
    ],
    # registry.json (registry.py): every decoding method and engine as experiments/ declares them,
    # in the order the page lists them; every name the page prints for one comes from here.
    "registry.json": META + [
        "families.*.name:str", "families.*.label.zh:str", "families.*.label.en:str",
        "families.*.drafts.zh:str", "families.*.drafts.en:str",  # where its drafts come from, one phrase
        "families.*.shapes:list",             # chain | tree: what it drafts
        "families.*.source?:str",             # draft | mtp | heads | corpus | context | self (methods.SOURCES)
        "families.*.q:str",                   # sampled | one-hot
        "families.*.recent:bool",             # one of the 2025–26 methods
        "families.*.measured:bool",           # families.json sweeps it
        "families.*.training?.zh:str", "families.*.training?.en:str",  # what building it takes (null: a timed training run)
        "engines.*.name:str", "engines.*.label.zh:str", "engines.*.label.en:str",
        "engines.*.peer?:bool",               # the peer library (transformers), timed beside our engines
    ],
    # causal.json (causal.py): section ① — causal masking, kv-cache, one verify step.
    "causal.json": META + [
        "prefix_check.text:str", "prefix_check.n_short:int", "prefix_check.n_full:int",
        "prefix_check.max_abs_diff:num",      # max |Δlogit| over the first 56 positions (float32)
        "prefix_check.max_abs_diff_float64:num",  # the same with the model in float64
        "prefix_check.max_abs_logit:num",
        "kvcache_check.n_tokens:int", "kvcache_check.max_abs_diff:num",
        "kvcache_check.max_abs_diff_float64:num", "kvcache_check.max_abs_logit:num",
        "kvcache_check.how:str",
        "verify_example.context:str",         # 8 real val chars
        "verify_example.gamma:int", "verify_example.seed:int", "verify_example.temperature:num",
        "verify_example.drafts:list",         # the draft model's real proposals, one char each
        "verify_example.p_draft:list", "verify_example.q_draft:list", "verify_example.u:list",
        "verify_example.n_accepted:int", "verify_example.next_char:str",
        "verify_example.next_kind:str",       # resample | bonus
        "verify_example.selection:str",
        "verify_example.rows.*.char:str", "verify_example.rows.*.role:str",
        "verify_example.rows.*.top:list",     # [[char, p], ...] next-char distribution per row
        "rollback.gamma:int", "rollback.seed:int", "rollback.n_accepted:int",
        "rollback.length_before:int", "rollback.length_after_verify:int",
        "rollback.length_after_rollback:int", "rollback.max_abs_diff_vs_rebuilt:num", "rollback.equal:bool",
    ],
    # acceptance.json (acceptance.py): section ② — the rule on real positions.
    "acceptance.json": META + [
        "vocab:list", "draws:int", "seed:int", "selection:str",
        "positions.*.kind:str",               # high | typical | low | overweight | uncertain
        "positions.*.context:str", "positions.*.next_char:str", "positions.*.p:list", "positions.*.q:list",
        "positions.*.alpha_theory:num",       # Σ min(p, q)
        "positions.*.counts:list",            # output histogram of the draws through accept_reject
        "positions.*.accept_rate:num", "positions.*.tv_out_p:num", "positions.*.tv_q_p:num",
        "positions.*.chi2_stat:num", "positions.*.chi2_dof:int", "positions.*.chi2_p:num",
        "positions.*.overweight_char?:str",   # the char q over-weights; overweight position only
    ],
    # divergence_sweep.json (divergence.py): α and KL along the draft's training.
    "divergence_sweep.json": META + [
        "n_positions:int", "seed:int", "context:int", "samples_per_position:int",
        "snapshots.*.step:int", "snapshots.*.alpha_mean:num",
        "snapshots.*.kl_mean:num", "snapshots.*.tv_mean:num",
        "snapshots.*.accept_rate_sampled:num", "snapshots.*.n_samples:int",
        "snapshots.*.draft_val_loss:num",
        "max_abs_alpha_minus_one_minus_tv:num",
    ],
    # ledger.json (ledger.py): every decoder from "ROMEO:\n", both modes, timed.
    "ledger.json": META + LEDGER_SETUP + COSTS + [
        *each("rows.*", LEDGER_ROW),
        "greedy_check.*.method:family", "greedy_check.*.mode:str", "greedy_check.*.gamma:int",
        "greedy_check.*.chars_compared:int", "greedy_check.*.equal:bool",
        "greedy_check.*.first_mismatch?:int",  # the first char that differs; null: all identical
        "engines.*:engine",                   # the engines measured: eager, and compiled where it compiled
        # the compiled engine, kv-cache mode (absent when it could not compile or was not asked for)
        *each("compiled?.rows.*", LEDGER_ROW),
        *each("compiled?.forward_costs", [c.replace("forward_costs.*.", "") for c in COSTS]),
        "compiled?.forward_costs.c_round.*:num",  # a compiled draft round / γ / main forward, keys γ
        "compiled?.greedy_check.*.method:family", "compiled?.greedy_check.*.gamma:int",
        "compiled?.greedy_check.*.chars_compared:int", "compiled?.greedy_check.*.equal:bool",
        "compiled?.greedy_check.*.first_mismatch?:int",
        "compiled?.plain_greedy_first_mismatch?:int",  # compiled vs eager plain greedy; null: identical
        "compiled?.fastest.method:family", "compiled?.fastest.gamma:int", "compiled?.fastest.speedup:num+",
        "compiled?.compile_s.main:obj", "compiled?.compile_s.draft:obj",  # seconds per graph, "kind/size"
        # transformers on the same weights (ledger.py peer_runs / peer_row; absent without the [peer] extra)
        "peer?.library:str", "peer?.version:str", "peer?.gamma:int",  # gamma: drafts per round
        "peer?.check.chars:int",              # val chars fed to both (past the sliding window)
        "peer?.check.max_abs_logit_diff:num", # converted Mistral vs our kv-cache forward, float32
        "peer?.check.greedy_first_mismatch.plain?:int",  # vs our plain greedy; null: identical
        "peer?.check.greedy_first_mismatch.assisted?:int", "peer?.check.greedy_first_mismatch.lookup?:int",
        "peer?.rows.*.method:str",            # plain | assisted | lookup
        "peer?.rows.*.gamma:int", "peer?.rows.*.main_forwards:num", "peer?.rows.*.draft_forwards:num",
        "peer?.rows.*.tokens_per_main:num", *each("peer?.rows.*.wall_s", SPREAD),
        "peer?.rows.*.speedup_own:num",       # its plain / it (median wall)
        "peer?.rows.*.over_ours_eager:num",   # our eager kv-cache plain / it
        "peer?.rows.*.over_ours_compiled?:num",  # our compiled plain / it
        "peer?.rows.*.parts_s.main_forwards:num", "peer?.rows.*.parts_s.draft_forwards:num",
        "peer?.rows.*.parts_s.other:num",
        # what the section's prose quotes (ledger.py ledger_summary)
        "summary.fewest_main_forwards.method:family", "summary.fewest_main_forwards.gamma:int",
        "summary.fewest_main_forwards.mode:str",
        "summary.fewest_main_forwards.main_forwards_saved:num",  # 1 − its main forwards / plain's
        "summary.fewest_main_forwards.draft_over_plain_forwards:num",  # its drafter s / plain's forward s
        "summary.fewest_main_forwards.drafts_exceed_plain_forwards:bool",  # draft_over_plain_forwards > 1
        "summary.fastest.*.method:family", "summary.fastest.*.gamma:int", "summary.fastest.*.speedup:num+",
        "summary.greedy_equal:int", "summary.greedy_checks:int",
        "summary.greedy_all_equal:bool",       # every greedy check identical
        "summary.recompute_verify_flat:bool",  # recompute: verifying γmax drafts is flat (stats.is_flat: ≤ 1.15 one-position forwards)
        # the compiled engine (absent without it): its fastest row against compiled plain and eager
        "summary.compiled?.beats_plain:bool",  # compiled.fastest.speedup ≥ 1
        "summary.compiled?.helps_less_than_eager:bool",  # its speedup < the fastest eager kv-cache row's
        "summary.compiled?.below_theory:bool", # its speedup < its Theorem 3.8
        "summary.compiled?.verify_s:num",      # its main forwards' seconds in the median run / their count
        "summary.compiled?.plain_s:num",       # the same for compiled plain decoding
        "summary.compiled?.verify_over_plain:num",  # verify_s / plain_s
        # rₖ (k = γ + 1) of its verify timed back to back (compiled.forward_costs), over the repeats
        "summary.compiled?.back_to_back.median:num", "summary.compiled?.back_to_back.min:num",
        "summary.compiled?.back_to_back.max:num", "summary.compiled?.back_to_back.n:int",
        "summary.compiled?.loop_extra_clear:bool",  # verify_over_plain > back_to_back.max
        "summary.compiled?.loop_verify_flat:bool",  # stats.is_flat(verify_over_plain): ≤ 1 + FLAT_SLACK (1.15)
        "summary.compiled?.greedy_equal:int", "summary.compiled?.greedy_checks:int",
        # transformers (absent without the [peer] extra): its plain decoding per character against our eager one
        "summary.peer?.greedy_identical:int",  # its methods whose greedy text is our plain greedy text
        "summary.peer?.forward_s:num", "summary.peer?.other_s:num",  # median run, per main forward
        "summary.peer?.ours_forward_s:num", "summary.peer?.ours_other_s:num",
        "summary.peer?.forward_gap_s:num", "summary.peer?.other_gap_s:num",  # theirs − ours
        "summary.peer?.gap_mostly_in_forwards:bool",  # forward_gap_s > other_gap_s
    ],
    # gamma_sweep.json (ledger.py): the draft model's rows, γ in {1, 2, 3, 4, 6, 8}.
    "gamma_sweep.json": META + LEDGER_SETUP + COSTS + [
        "gammas:list", "c.kvcache:num", "c.recompute:num",
        "rows.*.gamma:int", "rows.*.mode:str", "rows.*.alpha:num", "rows.*.tokens_per_main:num",
        "rows.*.tokens_per_main_expected:num",  # (1 - α^{γ+1}) / (1 - α) at the measured α
        "rows.*.speedup:num", *each("rows.*.speedup_runs", SPREAD), *each("rows.*.wall_s", SPREAD),
        "rows.*.speedup_theory:num",          # Theorem 3.8 with the measured α and c
        "rows.*.run_lengths:list",            # rounds with 0..γ drafts accepted
        "rows.*.burst.expected:list",         # the same under the geometric law at the row's α
        "rows.*.burst.chi2:num", "rows.*.burst.dof:int", "rows.*.burst.p?:num",
        # one pooled chi-square per mode over the rows with γ ≥ 2; its verdict words the page
        "burst_pooled.*.rows:int", "burst_pooled.*.chi2:num", "burst_pooled.*.dof:int",
        "burst_pooled.*.p:num", "burst_pooled.*.level:num",   # the test's level, 0.05
        "burst_pooled.*.ends.zero.observed:int", "burst_pooled.*.ends.zero.expected:num",  # rounds with 0 accepted
        "burst_pooled.*.ends.full.observed:int", "burst_pooled.*.ends.full.expected:num",  # rounds with all γ
        "burst_pooled.*.verdict:str",         # geometric (p ≥ level) | both_ends_high | differs
        # what the section's prose quotes (ledger.py gamma_summary)
        "summary.max_tokens_deviation:num",   # max |measured / expected tokens per main forward − 1|
        "summary.rows_below_expected_tokens:int", "summary.rows:int",
        "summary.all_below_expected_tokens:bool",  # every row emitted fewer than the formula expects
        "summary.tokens_drops:int",            # neighbouring γ rows where the longer chain emitted fewer (ledger.tokens_drops)
        "summary.below_theory.*.rows_below:int", "summary.below_theory.*.rows:int",  # speedup < Theorem 3.8
        "summary.fastest.*.gamma:int", "summary.fastest.*.alpha:num", "summary.fastest.*.speedup:num",
        "summary.fastest.*.gain_of_last_draft:num",  # α^γmax: what γmax − 1 → γmax adds at that α
        "summary.kvcache_forward_gain.main:num",     # recompute / kv-cache seconds per forward
        "summary.kvcache_forward_gain.draft:num",
        "summary.c_with_cache:str",            # larger | smaller | same: c with the cache against recompute
    ],
    # ladder.json (ladder.py): section ⑥'s engine ladder, the same decoders on every engine measured,
    # from the most per-call overhead to the least (eager, compiled, aot, native: 1 to 4 rungs)
    "ladder.json": META + [
        "prompt:str", "n_chars:int", "threads:int", "repeats:int",
        "engines.*:engine",                   # the rungs, in ladder order
        "reference:engine",                   # the rung the summary compares with (compiled where measured)
        "temperatures.*:num",                 # [1.0, 0.0]: rungs and summary are keyed T1 | T0
        # per temperature, one rung per engine in the order above
        "rungs.*.*.engine:engine",
        "rungs.*.*.verify_price.*:num+",      # r_k: a forward on k new positions / one on 1, back to back; keys "1".."9"
        "rungs.*.*.plain.chars_per_s:num+",   # plain decoding on this engine: n_chars / median wall
        # the fastest speculative chain on this engine (family, γ = size), timed interleaved with plain
        "rungs.*.*.best.family:family", "rungs.*.*.best.shape:str", "rungs.*.*.best.size:int",
        "rungs.*.*.best.chars_per_s:num+",
        "rungs.*.*.best.speedup:num+",        # over this engine's own plain decoding (medians)
        *each("rungs.*.*.best.speedup_runs", SPREAD),  # paired, repeat by repeat
        # ladder.py summarize, per temperature (the fields marked ? need the reference rung and another after it)
        "summary.reference:engine",
        *[f"summary.{key}.{field}" for key in ("T1", "T0") for field in (
            "verify_at:int",                  # k of the verify whose price every rung is compared at
            "verify_prices.*:num",            # engine: r at verify_at
            "overhead_gain?:num",             # the last rung's plain chars/s over the reference's (the bars' ratio)
            "speculation_gain?:num",          # the reference rung's best row over its own plain
            "overhead_beats_speculation?:bool",  # overhead_gain > speculation_gain
            "best_over_reference?:num",       # the last rung's best row chars/s over the reference's plain
            "speculation_last?:num",          # the last rung's best row over its own plain
            "speculation_grows?:bool",        # speculation_last > speculation_gain
            # the best row's round on the reference rung and on the last, in plain forwards of its engine
            # the best row's verify, positions and price (r at those positions), on the reference rung and the last
            "verify_ref?.positions:int", "verify_ref?.price:num", "verify_last?.positions:int", "verify_last?.price:num",
            "round_ref?.verify:num", "round_ref?.drafting:num", "round_ref?.other:num",
            "round_last?.verify:num", "round_last?.drafting:num", "round_last?.other:num",
            "grew_most?:str",                 # verify | drafting | other: the part that grew most between them
        )],
        # the last rung's best row at T = 0 against fresh `python -m experiments.generate` processes
        *each("fresh_check?", FRESH),
    ],
    # regime.json (regime.py): the dial, heavy twins of every network on the native engine.
    "regime.json": META + [
        "prompt:str", "n_chars:int+", "threads:int", "engine:engine", "model_seed:int", "temperatures:list",
        "candidates:obj",                     # family: [[shape, size], ...] the choosing pass tried
        "choose_repeats:int", "repeats:int",
        # the machine, once: one thread's streaming read and matmul, and where its caches stop helping
        "roofline.bandwidth_bytes_per_s:num+", "roofline.flops_per_s:num+",
        "roofline.bandwidth_sweep.*:num",     # MB streamed -> bytes/s
        "roofline.cache_edge_mb:int",         # the smallest buffer streamed at most `knee`× as fast as the largest
        "roofline.knee:num", "roofline.sysfs_last_level_cache?:str",  # what sysfs reports (a VM may report the host's)
        # one point per scale, lightest first
        "points.*.scale:num+", "points.*.main_bytes:int+",  # the main model's weights (its MTP head apart)
        "points.*.drafter_bytes.*:int",       # draft | mtp | medusa | eagle | eagle3 | block
        "points.*.main_s:num+",               # a one-position main forward, seconds (prices.py)
        "points.*.r.*:num+",                  # r_k: k new positions / one, keys "1".."9"
        "points.*.c.draft:num", "points.*.c.mtp:num",  # back to back, as costs.json's c
        "points.*.roofline.main_s:num", "points.*.roofline.r.*:num",  # what the roofline predicts
        *each("points.*.plain.*.wall_s", SPREAD), "points.*.plain.*.s_per_char:num",  # keys T1 | T0
        # every family's fastest configuration, per temperature, fastest first (rows.timed_row)
        "points.*.best.*.*.family:family", "points.*.best.*.*.shape:str", "points.*.best.*.*.size:int",
        "points.*.best.*.*.speedup:num+", *each("points.*.best.*.*.speedup_runs", SPREAD),
        "points.*.best.*.*.alpha?:num", "points.*.best.*.*.tokens_per_main:num+", "points.*.best.*.*.c?:num",
        "points.*.best.*.*.verify_over_main:num+", "points.*.best.*.*.drafter_per_round:num",
        "points.*.best.*.*.other_per_round:num",
        "points.*.best.*.*.theory?.verify_price:num",  # r_{γ+1} at this scale
        "points.*.best.*.*.theory?.with_verify_price:num",  # Theorem 3.8 at the row's α, c and r_{γ+1}
        "points.*.best.*.*.theory?.gap:num",  # measured / that − 1
        *each("points.*.best.*.*", TIMED_ROW),
        *each("points.*.plain.*", TIMED_ROW),  # plain decoding's own row, keys T1 | T0
        *each("points.*.choose.*.*?", TIMED_ROW),  # the choosing pass (one repeat), keys T1 | T0
        # the heaviest scale, T = 1: what a reader would use on the same twin, in the same run
        "points.*.peers?.library:str", "points.*.peers?.version?:str",
        *each("points.*.peers?.rows.*", TIMED_ROW),  # engine: eager or the library; over its own plain
        "points.*.peers?.eager_r.*:num+",     # r_k of our eager engine on the twin, keys "1".."9"
        "points.*.peers?.eager_main_s:num+",
        # ours (the native fastest row) against the library's fastest decoder: its median wall / ours
        "summary.peer?.ours.family:family", "summary.peer?.ours.size:int", "summary.peer?.theirs.family:family",
        "summary.peer?.theirs.size:int", "summary.peer?.ratio:num+", *each("summary.peer?.ratio_runs", SPREAD),
        "summary.peer?.verdict:str",
        # the heaviest scale's fastest row at T = 1 against fresh `generate --scale` processes
        *each("fresh_check?", FRESH),
        # regime.py summarize
        "summary.heaviest.scale:num+", "summary.heaviest.main_bytes:int+", "summary.heaviest.r5:num+",
        "summary.cache_edge_bytes:int+",
        *[f"summary.{key}.{field}" for key in ("T1", "T0") for field in (
            "fastest.family:family", "fastest.shape:str", "fastest.size:int", "fastest.speedup:num+",
            "fastest.verdict:str",            # faster | slower | unclear: every paired repeat on one side of 1×?
            "verdicts.*:str",                 # family -> verdict at the heaviest scale
            "pays_from.*?:num",               # family -> the first scale where it is faster in every repeat (absent: none)
        )],
    ],
    # families.json (families.py): every drafter family, swept and timed, both engines, T = 1 and 0.
    "families.json": META + [
        "prompt:str", "n_chars:int+", "threads:int", "engines.*:engine", "temperatures:list",
        "families.*:family",                  # draft | mtp | ngram | lookup | suffix | medusa | block | eagle | eagle3 | lookahead
        "chain_gammas:list", "tree_sizes:list", "sweep_repeats:int", "repeats:int", "seeds:list",
        "model_seed:int",                     # the models every figure but alpha_by_seed is measured on
        "alpha_seeds:list",                   # sampling seeds of the texts α is measured on (T = 1)
        # teacher-forced first-draft Σ min(p, q) on text the main model wrote; keys T1 | T0, then the drafter
        "alpha.*.*.alpha?:num", "alpha.*.*.positions:int",  # null: no position drafted
        "alpha.*.lookup.coverage:num",        # share of positions where prompt lookup drafts at all
        "alpha.*.suffix.coverage:num",        # ... where suffix decoding finds a match
        # teacher-forced α of the j-th draft of a chain (probes.alpha_by_depth), keys T1 | T0, then the
        # drafter (eagle | eagle3 | medusa | block): [depth 1, 2, ...]; windows of `window` chars every `stride`
        "alpha_by_depth.depth:int", "alpha_by_depth.window:int", "alpha_by_depth.stride:int",
        "alpha_by_depth.T1.eagle:list", "alpha_by_depth.T1.eagle3:list", "alpha_by_depth.T1.block:list",
        "alpha_by_depth.T1.medusa:list", "alpha_by_depth.T0.eagle:list", "alpha_by_depth.T0.eagle3:list",
        # α at T = 1 on each model seed with trained Medusa and EAGLE drafters (keys: seed, then drafter)
        "alpha_by_seed.*.*.alpha?:num", "alpha_by_seed.*.*.positions:int",
        "costs.main_params:int+", "costs.draft.params:int+", "costs.mtp.params:int+",
        # what section ⑤'s map prints of any family, where the family has it (families.py family_costs)
        *[f"costs.*.{field}" for field in ("params?:int", "train_wall_s?:num", "entries?:int", "bytes?:int")],
        "costs.medusa.params:int", "costs.medusa.steps:int", "costs.medusa.train_wall_s:num",
        "costs.medusa.config.n_heads:int",   # heads: drafts for positions t + 2 .. t + K + 1
        "costs.eagle.params:int", "costs.eagle.steps:int", "costs.eagle.train_wall_s:num",
        *[f"costs.{kind}.{field}" for kind in ("block", "eagle3") for field in ("params:int", "steps:int", "train_wall_s:num")],
        "costs.block.config.n_masks:int", "costs.eagle3.config.ttt_steps:int",
        *[f"costs.{kind}.by_seed.*.{field}" for kind in ("medusa", "eagle", "block", "eagle3")  # every seed with it
          for field in ("params:int", "train_wall_s:num")],
        # one chain drafting round (EAGLE | EAGLE-3 | block) of γ drafts over a one-position main
        # forward, back to back; keys: engine, family, then γ
        "drafting_prices.*.*.*:num",
        "costs.ngram.order:int", "costs.ngram.contexts:int", "costs.ngram.entries:int", "costs.ngram.bytes:int",
        "costs.lookup.match_chars:int", "costs.lookahead.ngram:int",
        # suffix decoding's index: the training split and its suffix array (one int64 per character)
        "costs.suffix.corpus_chars:int", "costs.suffix.bytes:int", "costs.suffix.max_depth:int",
        "costs.suffix.max_occurrences:int", "costs.suffix.factor:num",
        # the answer run's rows at the model as trained (regime.json's first point, families.py answer_rows)
        *each("sweep.*", TIMED_ROW),     # its choosing pass: every chain γ and tree size, few repeats
        *each("rows.*", TIMED_ROW + ["run:str"]),  # plain and each family's fastest; run: "regime"
        # one real round of n-gram tree decoding per tree size (families.py recorded_trees)
        "tree_rounds.*.nodes:int", "tree_rounds.*.context:str", "tree_rounds.*.root_position:int",
        "tree_rounds.*.tokens:str",           # one char per node, the root first
        "tree_rounds.*.parents:list", "tree_rounds.*.depths:list",
        "tree_rounds.*.path:list",            # accepted nodes, top down
        "tree_rounds.*.emitted:str",          # the accepted chars and the main model's next one
        "tree_rounds.*.p_top.*.chars:str", "tree_rounds.*.p_top.*.p:list",  # p at each node, top chars
        "tree_rounds.*.p_at_parent:list",     # p of each node's char at its parent
        "tree_rounds.*.tokens_per_main:num",  # over that whole decode
        # per engine, chain.<k> and tree.<nodes>: that verify forward timed back to back over a
        # one-position forward (families.py verify_prices; ① prints the trees beside their chains)
        "verify_prices?.*.chain.*:num", "verify_prices?.*.tree.*:num",
        # families.py summarize: the conclusions sections ⑤ and ⑦ print, on the primary engine
        # (compiled where it ran).
        "summary.primary_engine:engine",
        # the 2025–26 families (suffix | block | eagle3) against the rest, T = 1: the fastest row of each
        # group, and the drafting price per round against γ of EAGLE, EAGLE-3 and the block (the sweep)
        # (each_new: every new family's fastest row; plain_per_char: plain decoding's 1 + its rest)
        "summary.recent?.engine:engine", "summary.recent?.temperature:num", "summary.recent?.new_is_faster:bool",
        "summary.recent?.all_new_slower_than_plain:bool", "summary.recent?.plain_per_char:num",
        *[f"summary.recent?.{group}.{field}" for group in ("best_new", "best_old", "each_new.*")
          for field in ("family:family", "shape:str", "size:int", "speedup:num+", "tokens_per_main:num+",
                        "verify_over_main:num+", "drafter_per_round:num", "other_per_round:num")],
        *[f"summary.recent?.drafting.{f}.*.{field}" for f in ("eagle", "eagle3", "block")
          for field in ("size:int", "drafter_per_round:num")],
        # each family's best row at T = 1 and at T = 0 (rows above): its speedups and paired ranges;
        # at_T0: faster | slower | unclear (the two ranges overlap)
        "summary.temperature_change.engine:engine",
        *each("summary.temperature_change.families.*",
              ["family:family", "speedup_T1:num+", "speedup_T0:num+", "runs_T1.*:num", "runs_T0.*:num", "at_T0:str"]),
        "summary.temperature_change.faster_at_T0.*?:family", "summary.temperature_change.slower_at_T0.*?:family",
        "summary.temperature_change.unclear_at_T0.*?:family",
        # a row's verify price in the decoding loop (its verify_over_main) beside the same forward
        # timed back to back in the same run (families.py verify_prices; over a one-position forward):
        # in_loop = back_to_back + loop_extra, and for a tree back_to_back = chain_back_to_back + mask_extra
        *[f"{where}.{field}" for where in ("summary.fastest_verify?", "summary.tree_verify?.*")
          for field in ("family:family", "shape:str", "size:int",
                        "positions:int+",         # new positions in the verify: γ + 1, or the tree's nodes
                        "in_loop:num", "back_to_back:num",
                        "chain_back_to_back:num", # a chain forward over as many positions (①'s curve, this run)
                        "loop_extra:num",
                        "mask_extra?:num")],      # trees: building the tree mask and the nodes' positions
        # the fastest row per temperature (keys T1 | T0): pick it from rows by engine, temperature, family
        "summary.fastest.*.family:family", "summary.fastest.*.shape:str", "summary.fastest.*.size:int",
        "summary.fastest.*.speedup:num+",
        # the fastest T = 1 row's round in plain forwards (absent where its rest was not taken apart):
        "summary.fastest_round?.total:num",             # verify + drafting + the rest
        "summary.fastest_round?.plain_per_char:num",    # plain decoding: 1 forward + its rest
        "summary.fastest_round?.speedup_from_parts:num",  # tokens_per_main × plain_per_char / total
        "summary.fastest_round?.verify_biggest:bool",   # the verify is the largest of the three parts
        # at T = 1: the rows slower than plain (speedup < 1) and the slowest, its round in plain forwards
        "summary.slower_than_plain?.temperature:num", "summary.slower_than_plain?.rows:int",
        "summary.slower_than_plain?.families.*?:family",  # slower in every paired repeat (stats.paired_verdict)
        "summary.slower_than_plain?.unclear?.*?:family",  # neither side of 1x in every repeat
        *each("summary.slower_than_plain?.slowest", ["family:family", "shape:str", "size:int", "speedup:num+",
                                                     "tokens_per_main:num+", "verify_over_main:num+",
                                                     "drafter_per_round:num", "other_per_round?:num",
                                                     "round_total?:num+"]), # verify + drafting + the rest
        # the sweep of one family (n-gram) at T = 1, per shape (tree | chain): its fastest configuration
        # and the one with the most characters per main forward
        "summary.sweep_shapes?.family:family", "summary.sweep_shapes?.temperature:num",
        *[f"summary.sweep_shapes?.{shape}.{which}.{field}" for shape in ("tree", "chain")
          for which, figures in (("fastest", ("speedup:num+", "verify_over_main:num+")),
                                 ("most_tokens", ("tokens_per_main:num+",)))
          for field in ("family:family", "shape:str", "size:int", *figures)],
        "summary.sweep_shapes?.tree_gets_fewer:bool",   # the deepest tree emits fewer than the deepest chain
        # the learned drafters' α at T = 1 over model seeds (empty with one seed): keys draft | mtp | medusa | eagle
        "summary.alpha_seed_range.*?.min:num", "summary.alpha_seed_range.*?.max:num",
        "summary.memory.main_bytes:int+",     # the main model's float32 weights
        "summary.memory.ngram_over_main:num", # the n-gram table's bytes over those
        # the T = 0 sweep's greedy check (both engines, every run)
        "summary.greedy_check.configurations:int", "summary.greedy_check.identical:int",
        "summary.greedy_check.all_identical:bool",
    ],
    # conditions.json (conditions.py): when speculation pays; the first seed's models, T = 1 unless said
    "conditions.json": META + [
        "prompt:str", "n_chars:int+", "threads:int", "engines.*:engine", "model_seed:int",
        "configs.*.shape:str", "configs.*.size:int", "configs.*.name:str",  # one per family, every row below
        "temperatures:list", "text_seeds:list",
        # α (teacher-forced first draft) and tokens per main forward, over one text per sampling seed
        "by_temperature.*.temperature:num", "by_temperature.*.texts:int",
        *[f"by_temperature.*.{what}.*.{field}" for what in ("alpha", "tokens_per_main")
          for field in ("mean?:num", "min?:num", "max?:num", "values:list")],
        # share of positions where prompt lookup and suffix decoding draft at all
        "by_temperature.*.coverage.lookup.mean:num", "by_temperature.*.coverage.suffix.mean:num",
        # α on each kind of text (val | own | repetitive), keys T1 | T0, then the drafter
        "text_kinds:list", "by_text.*.*.texts:int", "by_text.*.*.drafters.*.alpha?:num",
        "by_text.*.*.drafters.*.positions:int", "by_text.*.*.drafters.lookup.coverage:num",
        "by_text.*.*.drafters.suffix.coverage:num",
        # wall seconds per output length, warm, both engines; speedup over plain of the same length and engine
        "lengths:list", "repeats:int",
        "by_length.*.engine:engine", "by_length.*.n_chars:int+", "by_length.*.family:family",
        *each("by_length.*.wall_s", SPREAD), "by_length.*.speedup:num+", "by_length.*.main_forwards:num",
        # a fresh generate process: its wall, the decode's, the rest (start-up) and the compilation in it
        "start_up.*.engine:engine", "start_up.*.family:family", "start_up.*.process_s:num", "start_up.*.decode_s:num",
        "start_up.*.start_up_s:num", "start_up.*.compile_s:num", "start_up_how:str",
        # in this process, best of 3: loading each checkpoint, building the n-gram table
        "preparation.load_main_s:num", "preparation.load_draft_s:num", "preparation.load_medusa_s:num",
        "preparation.load_eagle_s:num", "preparation.load_block_s:num", "preparation.load_eagle3_s:num",
        "preparation.ngram_table_s:num", "preparation.suffix_index_s:num",
        # conditions.py summarize: what section ⑦ and the closing quiz conclude
        "summary.primary_engine:engine",      # compiled where it ran, else eager
        # one drafter's (the draft model's) α and characters per main forward against temperature
        "summary.temperature.drafter:family",
        "summary.temperature.lowest_alpha.temperature:num", "summary.temperature.lowest_alpha.alpha:num",
        "summary.temperature.other_alpha.min:num", "summary.temperature.other_alpha.max:num",  # the other T's α
        "summary.temperature.peak_alpha.temperature:num", "summary.temperature.peak_alpha.alpha:num",  # T > 0
        "summary.temperature.peak_tokens.temperature:num", "summary.temperature.peak_tokens.tokens_per_main:num",
        "summary.temperature.highest.temperature:num", "summary.temperature.highest.alpha:num",
        "summary.temperature.rises_from_T0:bool",    # peak α > α at T = 0
        "summary.temperature.falls_past_peak:bool",  # α at the highest T < peak α
        # T = 1, the drafters with a first draft (prompt lookup aside): held-out text against the main model's own
        "summary.texts.val_own_gap:num",      # max |α(val) − α(own)|
        "summary.texts.val_own_bound:num",    # val_own_gap + 0.005, the bound the page prints to 2 digits
        "summary.texts.draft_rises_on_repetitive:bool", "summary.texts.lookup_drafts_more_on_val:bool",
        "summary.lengths.shortest:int", "summary.lengths.longest:int",
        "summary.lengths.per_char_s.*.plain:num", "summary.lengths.per_char_s.*.ngram:num",  # at the longest, per engine
        "summary.lengths.plain_per_char_s.*.*:num",  # plain decoding per engine, then per length (a string)
        "summary.lengths.slower_than_plain.*.*:list",  # families whose speedup there prints below 1.00×
        # seconds saved per character at the longest output, and the characters that repay the preparation:
        # the n-gram chain in the eager engine against building its table; compiled plain against eager
        # plain and the compiling of a fresh process (null where nothing is saved or it did not run)
        *[f"summary.lengths.{what}?.{field}" for what in ("ngram_table", "compiling")
          for field in ("saves_per_char_s:num", "pays_back_after_chars:num")],
    ],
    # exercises.json (exercises.py): what the four exercises print with their reference answers
    "exercises.json": META + [
        *[f"chi2.{rule}.{field}" for rule in ("rule", "accept_every_draft")  # exercise 1, and a broken rule
          for field in ("context:str", "n:int", "alpha:num", "accepted:num", "tv_output_p:num", "tv_q_p:num",
                        "chi2:num", "dof:int", "p_value:num")],
        "gamma.measured.alpha:num", "gamma.measured.c:num", "gamma.measured.theory_gamma:int",
        "gamma.measured.theory_speedup:num", "gamma.measured.measured_gamma:int",
        "gamma.measured.measured_speedup:num", "gamma.measured.measured_speedup_at_theory_gamma:num",
        "gamma.by_cost.*.c:num", "gamma.by_cost.*.rows.*.alpha:num", "gamma.by_cost.*.rows.*.gamma:int",
        "gamma.by_cost.*.rows.*.tokens_per_main:num", "gamma.by_cost.*.rows.*.speedup:num",
        "medusa.steps:int", "medusa.train_s:num",
        *[f"medusa.{when}.{who}:num" for when in ("untrained", "trained")
          for who in ("medusa_head", "draft_model", "mtp_head")],
        *[f"rollback.{answer}.{field}" for answer in ("answer", "no_rollback")
          for field in ("passed:bool", "max_abs_diff:num", "length:int", "expected_length:int")],
        "summary.gamma_theory_agrees:bool",   # exercises.py summarize: theory_gamma == measured_gamma
    ],
    # costs.json (costs.py): one forward's price per engine, kv-cache mode, vs new positions.
    "costs.json": META + [
        "positions.*:int+",                   # new positions per main forward: 1, 2, 3, 4, 6, ... 64
        "repeats:int", "calls_per_repeat:int", "threads:int", "how:str",
        "engines.*.seconds.main:num+", "engines.*.seconds.draft:num+", "engines.*.seconds.mtp_head:num+",
        "engines.*.seconds.positions.*:num+", # keys: the positions above
        *each("engines.*.spread.positions.*", SPREAD),  # over the repeats
        "engines.*.c:num", "engines.*.c_mtp:num", "engines.*.c_pair.*:num", "engines.*.c_mtp_pair.*:num",
        "engines.*.over_main.*:num+",         # n positions / 1 position: median of the paired repeats
        *each("engines.*.over_main_spread.*", SPREAD),  # the paired ratios over the repeats
        # costs.py summarize, per engine (keys eager | compiled | aot | native) and then over the engines
        *[f"{engine}.{field}" for engine in ("summary.eager", "summary.compiled?", "summary.aot?", "summary.native?") for field in (
            "flat_until:int",                 # most positions within flat_slack of one (costs.py flat_until)
            "flat_slack:num", "over_main_last:num",  # the last: 64 positions / 1
            "flat_start:bool")],              # flat_until > 1: a second position is (nearly) free
        "summary.primary_engine:engine",      # compiled where it ran, else eager
        "summary.flat_until_max:int",         # the largest flat_until of the engines
        "summary.flat_start:bool",            # flat_until_max > 1
    ],
    # mtp.json (mtp.py): the MTP head over seeds.
    "mtp.json": META + [
        "seeds:list", "seeds.*:int", "depth:int",
        "lambda:num",                         # the MTP loss weight, read from the checkpoint
        "params.hidden_norm:int", "params.embed_norm:int", "params.proj:int", "params.block:int",
        "params.shared_embedding_head:int", "params.shared_final_norm:int", "params.main_blocks:list",
        "params.mtp_head_total:int+", "params.main_total:int+",
        "curves.*.step:list", "curves.*.val.main:list", "curves.*.val.mtp?:list",
        "curves.*.train.main:list", "curves.*.train.mtp?:list", "curves.*.wall_s:num",
        *each("val_loss.main_mtp", MEAN_STD), *each("val_loss.control", MEAN_STD),
        *each("val_loss.mtp_head", MEAN_STD), *each("val_loss.draft", MEAN_STD),
        *each("alpha.mtp", MEAN_STD), *each("alpha.draft", MEAN_STD),
        *each("alpha.mtp_val", MEAN_STD), *each("alpha.draft_val", MEAN_STD), "alpha_how:str",
        # the paired t-test, with MTP loss − control, per seed (stats.py paired_t_test)
        "verdict.differences:list", "verdict.mean_difference:num", "verdict.n_seeds:int",
        "verdict.test:str",                   # the test, in one sentence
        "verdict.df?:int",                    # n − 1; null (like all below) for a single seed
        "verdict.standard_error?:num", "verdict.t?:num",
        "verdict.t_critical?:num",            # two-sided 95% of Student's t (4.303 for df 2)
        "verdict.p?:num", "verdict.ci95?:list",  # [lo, hi] of the mean difference
        "verdict.beyond_seed_noise?:bool",    # |t| > t_critical
        "sample.text:str", "sample.prompt:str", "sample.n_chars:int", "sample.temperature:num",
        "sample.seed:int", "sample.mode:str",
        "sample.main_forwards:int", "sample.accepted:int", "sample.proposed:int",
        "sample.steps.*.emitted:list", "sample.steps.*.n_accepted:int", "sample.steps.*.next_from:str", "sample.steps.*.accepted:bool",
        "sample.steps.*.draft?:str",          # null on a forward with no draft
        "sample.steps.*.p_draft?:num", "sample.steps.*.q_draft?:num", "sample.steps.*.u?:num",
        # what the section's prose quotes (mtp.py)
        "summary.mtp_ahead_generated:bool",   # MTP head's α > small draft's, on generated text
        "summary.mtp_ahead_val:bool",         # ... on real val text (Σmin(p, q))
        "summary.alpha_order_flips:bool",     # the two rankings differ
        "summary.mtp_loss_lower:bool",        # mean val loss: the main model with the MTP loss below the control
        "summary.head_minus_main_loss:num",   # mean val loss: MTP head − main model
        "summary.train_chars_seen:int+",      # steps × batch × block_size of the main model
    ],
    # lab.json (lab.py): the first seed's models for the page's live lab (section ⑧), as float16
    # weights and the n-gram table's counts, each gzip + base64 ("blob"); build.py puts it in its
    # own <script id="lab-data">, parsed only when the lab comes into view.
    "lab.json": META + [
        "vocab:str", "model_seed:int", "check_chars:int",
        *[f"{m}.{field}" for m in ("main", "draft") for field in (
            "config.vocab_size:int", "config.n_layer:int", "config.n_embd:int", "config.n_head:int",
            "config.mlp_hidden:int", "config.block_size:int", "config.mtp:bool",
            "params:int",                         # every weight, the MTP head's included
            "tensors.*.name:str", "tensors.*.shape:list", "tensors.*.offset:int", "blob:str")],
        "ngram.order:int", "ngram.contexts:int", "ngram.pairs:int", "ngram.next_bytes:int",
        "ngram.char_bytes:int", "ngram.count_bytes:int", "ngram.blob:str", "ngram.built_from:str",
        # what rounding the weights to float16 changes, on the checked val text (T = 1)
        *[f"rounding.{who}.{field}" for who in ("main.model", "main.mtp", "draft.model")
          for field in ("max_abs_logit:num", "max_tv:num", "argmax_agree:num", "positions:int")],
    ],
}
