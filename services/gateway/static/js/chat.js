// The conversation: history (newest at the bottom, older pages on scroll), streamed answers
// rendered as markdown with citation chips, star and delete per turn.

import { api, NETWORK_DOWN } from "./api.js";
import { openCitation } from "./citation.js";
import { chosenSources } from "./composer.js";
import { fileRecord } from "./files.js";
import { renderMarkdown } from "./markdown.js";
import { avatar, currentPersona, persona } from "./personas.js";
import { el, formatTime, iconButton, lineRange, notify, reportError } from "./ui.js";

let older = null; // cursor of the next older page; null when all is loaded
let loadingOlder = false;
let answering = null; // AbortController of the answer streaming now

const messages = () => document.getElementById("messages");
const scroller = () => document.getElementById("conversation");

export async function loadHistory() {
  messages().replaceChildren();
  const page = await api.turns();
  older = page.next;
  messages().append(...page.items.reverse().map(turnView));
  updateEmptyState();
  scrollToEnd();
}

export function clearConversation() {
  answering?.abort();
  messages().replaceChildren();
  older = null;
}

export function setupHistoryPaging() {
  const sentinel = document.getElementById("history-top");
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) loadOlder();
  }, { root: scroller() }).observe(sentinel);
}

async function loadOlder() {
  if (!older || loadingOlder) return;
  loadingOlder = true;
  const box = scroller();
  try {
    const page = await api.turns(older);
    older = page.next;
    const before = box.scrollHeight;
    messages().prepend(...page.items.reverse().map(turnView));
    box.scrollTop += box.scrollHeight - before; // keep what the reader was looking at in place
  } catch (error) {
    reportError(error, "Loading earlier messages");
  } finally {
    loadingOlder = false;
  }
}

export function updateEmptyState() {
  const empty = document.getElementById("empty-state");
  empty.hidden = messages().children.length > 0;
  const chosen = currentPersona();
  empty.querySelector("h2").textContent = `Ask ${chosen.display_name} anything`;
  empty.querySelector(".empty-role").textContent = chosen.description || chosen.role;
}

function scrollToEnd() {
  const box = scroller();
  box.scrollTop = box.scrollHeight;
}

function nearEnd() {
  const box = scroller();
  return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
}

// --- sending and streaming ----------------------------------------------------------------------

/** Send `text` to the current persona; false (nothing sent) while an answer is streaming. */
export function sendMessage(text) {
  if (answering) {
    notify(`${currentPersona().display_name} is still answering; send again when the answer is done.`);
    return false;
  }
  const attachments = chosenSources();
  const speaker = currentPersona();
  const view = turnView({
    persona: speaker.name,
    user_message: text,
    attachments,
    created_at: new Date().toISOString(),
  });
  messages().append(view);
  updateEmptyState();
  scrollToEnd();
  stream(view, { persona: speaker.name, message: text, attachments });
  return true;
}

async function stream(view, request) {
  answering = new AbortController();
  const answer = view.querySelector(".answer");
  view.classList.add("streaming");
  let text = "";
  let painted = false;
  try {
    for await (const { event, data } of api.chat(request, answering.signal)) {
      if (event === "token") {
        text += data.text;
        if (!painted) {
          painted = true;
          // one paint per frame: tokens can arrive faster than the page can lay them out
          requestAnimationFrame(() => {
            const follow = nearEnd();
            renderMarkdown(answer, text);
            painted = false;
            if (follow) scrollToEnd();
          });
        }
      } else if (event === "done") {
        finishTurn(view, data);
        return;
      } else if (event === "error") {
        throw new Error(data.detail);
      }
    }
    throw new Error("The answer stopped before it was complete; ask again.");
  } catch (error) {
    if (error.name === "AbortError") return;
    // a stream cut mid-way (gateway gone) surfaces as a bare TypeError from the reader
    const message = error instanceof TypeError ? NETWORK_DOWN : error.message;
    answer.replaceChildren(el("p", { class: "error-text", role: "alert" }, message));
    view.classList.add("failed");
  } finally {
    view.classList.remove("streaming");
    answering = null;
  }
}

function finishTurn(view, done) {
  const nearBottom = nearEnd();
  const finished = turnView({
    id: done.turn_id,
    persona: done.persona,
    user_message: view.querySelector(".user-text").textContent,
    attachments: JSON.parse(view.dataset.attachments),
    ai_response: done.answer,
    citations: done.citations,
    is_starred: false,
    created_at: new Date().toISOString(),
  });
  view.replaceWith(finished);
  const notes = [];
  if (done.removed?.length) {
    notes.push(`The check removed ${done.removed.length} unsupported sentence${done.removed.length > 1 ? "s" : ""}.`);
  }
  const tokens = done.sections.reduce((sum, section) => sum + Number(section.tokens || 0), 0);
  const used = done.sections.map((section) => `${section.name} ${section.tokens}`).join(" · ");
  finished.querySelector(".actions").before(
    el("details", { class: "context-used" },
      el("summary", {}, `Context: ${tokens} tokens${notes.length ? ` · ${notes.join(" ")}` : ""}`),
      el("p", {}, used || "no context"),
      el("p", {}, `${done.usage.model}: ${done.usage.prompt_tokens} prompt + ${done.usage.completion_tokens} answer tokens`)),
  );
  if (nearBottom) scrollToEnd();
}

// --- one turn -------------------------------------------------------------------------------------

function turnView(turn) {
  const speaker = persona(turn.persona);
  const citations = new Map((turn.citations ?? []).map((citation) => [citation.ref, citation]));
  const answer = el("div", { class: "answer markdown" });
  if (turn.ai_response !== undefined) renderMarkdown(answer, turn.ai_response, citations, openCitation);
  else answer.append(el("p", { class: "typing", "aria-label": `${speaker.display_name} is answering` }, "…"));
  return el(
    "li",
    { class: "turn", dataset: { turnId: turn.id ?? "", attachments: JSON.stringify(turn.attachments ?? []) } },
    el(
      "div",
      { class: "msg user" },
      el("p", { class: "user-text" }, turn.user_message),
      turn.attachments?.length
        ? el("p", { class: "turn-attachments" }, "Answered only from ", turn.attachments.map(attachmentLabel))
        : null,
    ),
    el(
      "div",
      { class: "msg assistant" },
      avatar(speaker),
      el(
        "div",
        { class: "body" },
        el("p", { class: "meta" }, el("strong", {}, speaker.display_name), ` · ${formatTime(turn.created_at)}`),
        answer,
        citations.size ? sourceList([...citations.values()]) : null,
        turn.id ? turnActions(turn) : null,
      ),
    ),
  );
}

function attachmentLabel(fileId) {
  const record = fileRecord(fileId);
  return el("span", { class: "chip small" }, record ? record.filename : "a deleted file");
}

function sourceList(citations) {
  return el(
    "ol",
    { class: "sources", "aria-label": "Sources" },
    citations.map((citation) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", class: "source link", onclick: () => openCitation(citation) },
          el("span", { class: "source-ref" }, String(citation.ref)),
          citation.file_id
            ? `${citation.filename}${citation.title ? ` — ${citation.title}` : ""}${citation.line_start ? `, ${lineRange(citation.line_start, citation.line_end)}` : ""}`
            : citation.fact_id
              ? `Memory — ${citation.title}: ${citation.snippet}`
              : `Past conversation — ${citation.title}`,
        ),
      ),
    ),
  );
}

function turnActions(turn) {
  const star = iconButton("star", turn.is_starred ? "Unstar this turn" : "Star this turn (always remembered)", () => toggleStar(turn, star), {
    class: "icon-button star",
    "aria-pressed": String(turn.is_starred),
  });
  return el(
    "div",
    { class: "actions" },
    star,
    iconButton("trash", "Delete this turn", (event) => deleteTurn(turn, event.currentTarget.closest(".turn"))),
  );
}

async function toggleStar(turn, button) {
  try {
    const updated = await api.star(turn.id, !turn.is_starred);
    turn.is_starred = updated.is_starred;
    button.setAttribute("aria-pressed", String(turn.is_starred));
    const label = turn.is_starred ? "Unstar this turn" : "Star this turn (always remembered)";
    button.setAttribute("aria-label", label);
    button.title = label;
  } catch (error) {
    reportError(error, "Starring the turn");
  }
}

async function deleteTurn(turn, view) {
  if (!window.confirm("Delete this turn? It is removed from the history and from Artisan's memory.")) return;
  try {
    await api.deleteTurn(turn.id);
  } catch (error) {
    if (error.status !== 404) return reportError(error, "Deleting the turn");
  }
  view.remove();
  updateEmptyState();
  document.dispatchEvent(new CustomEvent("turn-deleted", { detail: turn.id }));
}

/** Remove a turn's view (deleted from the memory panel). */
export function removeTurnView(turnId) {
  messages().querySelector(`[data-turn-id="${turnId}"]`)?.remove();
  updateEmptyState();
}
