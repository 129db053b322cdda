// The memory panel: this persona's instructions, the global ones, and durable facts — each
// deletable. An instruction is the Artisan Cut of a turn, so forgetting it deletes that turn.
// Who keeps an instruction is worded as the acknowledgement words it (shared/memory_rule.py):
// "every advisor", unless the instruction named one advisor.

import { api } from "./api.js";
import { removeTurnView } from "./chat.js";
import { currentPersona } from "./personas.js";
import { el, formatTime, iconButton, morePages, notify, reportError } from "./ui.js";

const panel = () => document.getElementById("memory-panel");

export function setupMemoryPanel() {
  const button = document.getElementById("memory-button");
  const close = () => {
    panel().hidden = true;
    button.setAttribute("aria-expanded", "false");
    button.focus();
  };
  button.addEventListener("click", () => {
    const opening = panel().hidden;
    panel().hidden = !opening;
    button.setAttribute("aria-expanded", String(opening));
    if (opening) {
      refreshMemory();
      panel().querySelector("h2").focus();
    }
  });
  panel().querySelector(".close").addEventListener("click", close);
  panel().addEventListener("keydown", (event) => event.key === "Escape" && close());
  document.addEventListener("turn-deleted", () => !panel().hidden && refreshMemory());
}

export async function refreshMemory() {
  if (panel().hidden) return;
  const chosen = currentPersona();
  const body = panel().querySelector(".panel-body");
  try {
    const [instructions, memory] = await Promise.all([api.instructions(chosen.name), api.memory()]);
    const own = instructions.items.filter((item) => item.instruction_scope === chosen.name);
    const global = instructions.items.filter((item) => item.instruction_scope !== chosen.name);
    const facts = section("What Artisan knows", memory.items.map(factItem),
      "Facts about you and your company (“my name is…”, “our company is called…”) — every advisor knows them and answers from them.");
    body.replaceChildren(
      section(`Only for ${chosen.display_name}`, own.map(instructionItem),
        `Instructions that name ${chosen.display_name} (“${chosen.display_name}, never…”) appear here; other advisors never see them.`),
      section("For every advisor", global.map(instructionItem),
        "Instructions about how to answer (“always answer in English”, “I prefer short answers”) are for every advisor unless they name one."),
      facts,
    );
    morePages(facts.querySelector("ul"), memory.next, (before) => api.memory({ before }), factItem, "facts");
  } catch (error) {
    reportError(error, "Loading memory");
  }
}

function section(title, items, emptyText) {
  return el(
    "section",
    { class: "memory-section" },
    el("h3", {}, title),
    items.length ? el("ul", { class: "memory-list" }, items) : el("p", { class: "muted" }, emptyText),
  );
}

function instructionItem(entry) {
  return el(
    "li",
    { dataset: { turnId: entry.turn_id } },
    el("p", {}, entry.instruction || entry.boss_essence),
    el("p", { class: "muted" }, `For ${entry.applies_to || entry.instruction_scope} · told to ${entry.persona} · ${formatTime(entry.created_at)}`),
    iconButton("trash", "Forget this instruction (deletes the turn that gave it)", () => forgetInstruction(entry)),
  );
}

function factItem(fact) {
  return el(
    "li",
    { dataset: { factId: fact.id } },
    el("p", {}, fact.fact),
    el("p", { class: "muted" }, `${fact.kind === "user" ? "About you" : "About your company"} · every advisor knows this · confidence ${fact.confidence.toFixed(2)}`),
    iconButton("trash", "Forget this fact", () => forgetFact(fact)),
  );
}

async function forgetInstruction(entry) {
  if (!window.confirm("Forget this instruction? The turn that gave it is deleted too.")) return;
  try {
    await api.deleteTurn(entry.turn_id);
    removeTurnView(entry.turn_id);
    notify("Instruction forgotten.");
  } catch (error) {
    if (error.status !== 404) reportError(error, "Forgetting the instruction");
  }
  refreshMemory();
}

async function forgetFact(fact) {
  try {
    await api.deleteFact(fact.id);
    notify("Fact forgotten.");
  } catch (error) {
    if (error.status !== 404) reportError(error, "Forgetting the fact");
  }
  refreshMemory();
}
