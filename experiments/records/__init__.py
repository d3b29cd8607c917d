"""The results files, declared once: every file experiments/measure/ writes and the page reads, as
typed records (TypedDict), one module per group of files (base.py: what several share). The writers build their rows with these types (rows.timed_row returns a
TimedRow); the build (chapter/schema.py) turns each file's record into the dotted paths it checks
the JSON against, and gives the page only the fields declared here. So a field the page reads is
declared here, once; a writer may write more (it stays in the file, the page does not get it).

No torch, and nothing else of ours is imported: the build imports this package without torch.

How a field's type reads:
  float: a number (int or float); int, str, bool; a bare list or dict: its contents are not checked
  Annotated[..., Positive]: above 0 (a time, a size, a count or a price that the page divides by);
    PositiveNum, PositiveInt
  Annotated[str, FamilyName] / Annotated[str, EngineName]: the name of a family / an engine that
    registry.json declares (the page prints every such name through the registry's labels); Family, Engine
  NotRequired[...]: may be absent; `X | None`: may be null (either way, what is there is checked)
  dict[str, X]: every value an X; list[X]: every item an X; both hold at least one, unless MayBeEmpty
  EveryValue(R) on a record: each of its values is an R too (the keys it names carry more)

Probabilities are float64 values that sum to 1; `p` is always the main (target) model and `q`
the draft (Leviathan et al. 2023). Every file carries `meta`: where and how it was measured.
Each file is written by the experiments/measure/<module>.py its comment names.
"""
from experiments.records.conditions import ConditionsFile, CostsFile, ExercisesFile
from experiments.records.families import FamiliesFile
from experiments.records.ledger import GammaSweepFile, LadderFile, LedgerFile
from experiments.records.models import AcceptanceFile, CausalFile, DivergenceFile, ModelsFile, RegistryFile
from experiments.records.mtp_lab import LabFile, MtpFile
from experiments.records.regime import RegimeFile

# every results file the page reads, in the order the build reads them
RESULTS_FILES = {
    "models.json": ModelsFile,
    "registry.json": RegistryFile,
    "causal.json": CausalFile,
    "acceptance.json": AcceptanceFile,
    "divergence_sweep.json": DivergenceFile,
    "ledger.json": LedgerFile,
    "gamma_sweep.json": GammaSweepFile,
    "ladder.json": LadderFile,
    "regime.json": RegimeFile,
    "families.json": FamiliesFile,
    "conditions.json": ConditionsFile,
    "exercises.json": ExercisesFile,
    "costs.json": CostsFile,
    "mtp.json": MtpFile,
    "lab.json": LabFile,
}
