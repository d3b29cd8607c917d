"""The chapter's four exercises, runnable (section ⑦ shows what each prints and hides the answers).

    python -m experiments.exercises chi2 --n 50000     # 1. the output of accept_reject follows p
    python -m experiments.exercises gamma --c 0.05     # 2. the best γ for α = 0.5, 0.7, 0.85
    python -m experiments.exercises medusa --steps 300 # 3. train one Medusa head, measure its α
    python -m experiments.exercises rollback           # 4. your kv-cache rollback, checked

Each runs on the committed checkpoints of seed 0 (experiments/checkpoints/); none writes a file.
"""
