// Closing panel: the self-check. Each question is a group of answer buttons plus a <details>
// with the answer (which works without JS too). Picking an answer says right or wrong at once
// and opens the answer once it is right. Nothing is stored.
import { onLangChange, t } from "./i18n.js";

const CLOSING_FEEDBACK = {
  right: { zh: "答对了。", en: "Right." },
  wrong: { zh: "不对。再想想，或展开下面的答案。", en: "Not quite. Think again, or open the answer below." },
};

// The verdict on one pick: the option's data-correct flag decides.
export function closingVerdict(option) {
  return option.dataset.correct === "true" ? "right" : "wrong";
}

export function initClosing() {
  const quiz = document.getElementById("closing-quiz");
  const picked = new Map(); // question id -> verdict of the last pick

  function showFeedback(q) {
    const verdict = picked.get(q.id);
    const box = q.querySelector(".closing-feedback");
    box.textContent = verdict ? t(CLOSING_FEEDBACK[verdict]) : "";
    box.className = `closing-feedback ${verdict === "right" ? "good" : verdict ? "warn" : ""}`;
  }

  quiz.addEventListener("click", (e) => {
    const option = e.target.closest(".closing-option");
    if (!option) return;
    const q = option.closest(".closing-q");
    const verdict = closingVerdict(option);
    for (const other of q.querySelectorAll(".closing-option")) {
      other.setAttribute("aria-pressed", String(other === option));
      other.classList.remove("right", "wrong");
    }
    option.classList.add(verdict);
    picked.set(q.id, verdict);
    if (verdict === "right") q.querySelector(".closing-answer").open = true;
    showFeedback(q);
  });
  onLangChange(() => { for (const q of quiz.querySelectorAll(".closing-q")) showFeedback(q); });
}
