"""models.json: sizes, configs and val losses of every trained model; the MTP head's parts.

Its results are declared in experiments/records/models.py: ModelsFile (models.json)."""
from experiments.data import SHA256
from experiments.measure.common import DRAFT, MAIN_MTP, RUNS, load, mtp_param_parts, training_log, val_loss_of
from experiments.runs import run_name


def measure(args, data, seeds, sizes):
    """Every trained run of every seed: its checkpoint (config, steps, λ), its training log and
    its loss over the whole val split."""
    runs = {}
    for seed in seeds:
        for model_kind, mtp in RUNS:
            name = run_name(model_kind, mtp, seed)
            model, payload = load(args, name)
            log = training_log(args, name)
            runs[name] = {
                "kind": "draft" if model_kind == "draft" else ("main_mtp" if mtp else "control"),
                "seed": seed, "mtp_weight": payload.get("mtp_weight", 0.0), "steps": payload["step"],
                "config": payload["config"], "params": model.n_params_main(),
                "params_total": model.n_params(),
                "val_loss_train_log": log["final_val"],
                "val_loss_full": val_loss_of(args, data, name),
                "train_wall_s": log["wall_time_s"], "train_device": log["meta"]["device"],
                "train_threads": log["meta"]["threads"],
                "batch_size": log["config"]["batch_size"]}
    main, draft = (runs[run_name(*run, seeds[0])] for run in (MAIN_MTP, DRAFT))
    main_model = load(args, run_name(*MAIN_MTP, seeds[0]))[0]
    return {"models": {
        "data": {"name": "tiny shakespeare", "file": data.path.name, "chars": data.n_chars,
                 "vocab_size": data.vocab_size, "sha256": SHA256,
                 "train_chars": len(data.train), "val_chars": len(data.val)},
        "runs": runs, "mtp_parts": mtp_param_parts(main_model),
        "mtp_depth": 1 if main_model.mtp is not None else 0,  # this MTP head predicts one extra token
        "mtp_head_params": main_model.n_params(main_model.mtp),
        # the draft model's size as a fraction of the main model's (next-token parts), first seed
        "summary": {"seed": seeds[0], "draft_params_fraction": draft["params"] / main["params"]}}}
