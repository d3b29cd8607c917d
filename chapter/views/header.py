"""The header and the chapter card (page.html.j2): the models the chapter trained, as the card lists them,
and the lede's measured answer in one plain sentence (whether speculation pays at each end of the dial)."""
from chapter.views.dial import dial_end
from chapter.views.regime import pays
from chapter.views.rows import first_seed_run


def view(data):
    """What the header and the chapter card (page.html.j2) prints, computed here so that the template only formats it."""
    models, mtp, points = data["models"], data["mtp"], data["regime"]["points"]
    main, draft = first_seed_run(models, "main"), first_seed_run(models, "draft")
    return {"main": main, "draft": draft,
            "draft_percent_of_main": 100 * draft["params"] / main["params"],
            "val_loss": mtp["val_loss"],
            # the losses are a mean ± std over the seeds, or one seed's figure
            "loss_over_seeds": mtp["val_loss"]["main_mtp"]["std"] is not None,
            "n_seeds": len(mtp["seeds"]), "loss_seed": mtp["seeds"][0], "seeds": mtp["seeds"],
            "answer": pays(dial_end(points[0]), dial_end(points[-1]))}
