// The conversation: history (newest at the bottom, older pages on scroll), streamed answers
// rendered as markdown with citation chips; per turn: copy, regenerate, star, delete, and edit
// the message to send it again. An answer that fails or is stopped is shown with what came of
// it and a Retry; nothing of it is stored, and its message goes back to the box.

import { api, NETWORK_DOWN } from "./api.js";
import { openCitation } from "./citation.js";
import { chosenSources, editMessage, messageTaken, putBack, showAnswering } from "./composer.js";
import { currentConversation } from "./current_conversation.js";
import { fileRecord } from "./files.js";
import { renderMarkdown } from "./markdown.js";
import { avatar, currentPersona, persona } from "./personas.js";
import { refreshModelStatus } from "./settings.js";
import { contextDetails, copyAnswer, sourceList } from "./turn_tools.js";
import { el, formatTime, iconButton, inUserWords, notify, reportError } from "./ui.js";

let older = null; // cursor of the next older page; null when all is loaded
let loadingOlder = false;
let answering = null; // AbortController of the answer streaming now
let answered = () => {}; // told of every answer stored (the conversation list: main.js wires it)

const messages = () => document.getElementById("messages");
const scroller = () => document.getElementById("conversation");

let shown = 0; // the latest loadHistory: an earlier one that answers later is dropped

/** The turns of the conversation shown (none for a new one), newest at the bottom. */
export async function loadHistory() {
  const loading = ++shown;
  messages().replaceChildren();
  older = null;
  const conversation = currentConversation();
  const page = conversation ? await api.turns(null, conversation) : { items: [], next: null };
  if (loading !== shown) return;
  older = page.next;
  // above a question sent while it loaded
  messages().prepend(...page.items.reverse().map(turnView));
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
    const page = await api.turns(older, currentConversation());
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

/**
 * Send `text` (to the current persona, over the chosen files, unless `options` say otherwise);
 * false (nothing sent) while an answer is streaming. `options.replaces`: the turn a regenerated
 * answer takes the place of, deleted once the new answer is stored.
 */
export function sendMessage(text, { persona = currentPersona().name, attachments = chosenSources(), replaces = null } = {}) {
  if (answering) {
    notify(`${currentPersona().display_name} is still answering: stop the answer, or send again when it is done.`);
    return false;
  }
  // a failed or stopped answer's words went back to the box: sending again replaces it
  for (const unsaved of messages().querySelectorAll(".turn.unsaved")) unsaved.remove();
  const view = turnView({ persona, user_message: text, attachments, created_at: new Date().toISOString() });
  view.classList.add("unsaved");
  messages().append(view);
  updateEmptyState();
  scrollToEnd();
  stream(view, { persona, message: text, attachments, conversation_id: currentConversation() ?? undefined }, replaces);
  return true;
}

/** `listener(done)` is told of every answer stored, with the chat service's `done` event. */
export function onAnswered(listener) {
  answered = listener;
}

/** Stop the answer streaming now: the server stops writing it and stores nothing. */
export function stopAnswer() {
  if (!answering) return;
  answering.stopped = true;
  answering.abort();
}

async function stream(view, request, replaces) {
  const controller = (answering = new AbortController());
  const answer = view.querySelector(".answer");
  view.classList.add("streaming");
  showAnswering(true);
  let text = "";
  let painted = false;
  try {
    for await (const { event, data } of api.chat(request, controller.signal)) {
      if (event === "accepted") {
        messageTaken(request.message); // now the box may be cleared: the question is in
      } else if (event === "token") {
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
        if (replaces) await removeReplaced(replaces);
        return;
      } else if (event === "error" || event === "stopped") {
        throw new Error(data?.detail ?? "The answer was stopped.");
      }
    }
    if (!controller.signal.aborted) throw new Error("The answer ended before it was complete.");
  } catch (error) {
    if (!controller.signal.aborted) {
      // a stream cut mid-way (gateway gone) surfaces as a bare TypeError from the reader
      unsaved(view, request, text, error instanceof TypeError ? NETWORK_DOWN : inUserWords(error.message), replaces);
    }
  } finally {
    view.classList.remove("streaming");
    showAnswering(false);
    if (answering === controller) answering = null;
  }
  if (controller.stopped) unsaved(view, request, text, null, replaces);
}

/**
 * An answer that failed (`message`) or was stopped (no message): nothing of it was stored.
 * What streamed stays in view, the message goes back to the box, and Retry sends it again.
 */
function unsaved(view, request, partial, message, replaces) {
  putBack(request.message);
  if (message) refreshModelStatus({ quietly: true }); // the model may have stopped answering: the chip says so
  view.classList.add(message ? "failed" : "stopped");
  const answer = view.querySelector(".answer");
  if (partial) renderMarkdown(answer, partial);
  else answer.replaceChildren();
  const note = message
    ? el("p", { class: "error-text", role: "alert" }, `${message} Nothing was saved; your message is back in the box.`)
    : el("p", { class: "stopped-text" }, "Stopped. This answer was not saved; your message is back in the box.");
  const retry = el("button", { type: "button", class: "ghost retry", onclick: () => sendMessage(request.message, { ...request, replaces }) }, "Retry");
  view.querySelector(".turn-error")?.remove();
  answer.after(el("div", { class: "turn-error" }, note, retry));
}

function finishTurn(view, done) {
  answered(done);
  const nearBottom = nearEnd();
  const finished = turnView({
    id: done.turn_id,
    persona: done.persona,
    user_message: view.querySelector(".user-text").textContent,
    attachments: JSON.parse(view.dataset.attachments),
    ai_response: done.answer,
    citations: done.citations,
    context_sections: done.sections,
    removed: done.removed,
    model: done.usage.model,
    prompt_tokens: done.usage.prompt_tokens,
    completion_tokens: done.usage.completion_tokens,
    is_starred: false,
    created_at: new Date().toISOString(),
  });
  view.replaceWith(finished);
  if (nearBottom) scrollToEnd();
}

/** A regenerated answer is stored: the turn it replaces goes, from the history and memory. */
async function removeReplaced(turn) {
  try {
    await api.deleteTurn(turn.id);
  } catch (error) {
    if (error.status !== 404) return reportError(error, "The new answer is saved, but removing the old one failed");
  }
  removeTurnView(turn.id);
  document.dispatchEvent(new CustomEvent("turn-deleted", { detail: turn.id }));
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
      iconButton("edit", "Edit this message and send it again", () => editMessage(turn.user_message), { class: "icon-button edit" }),
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
        turn.context_sections && !turn.imported ? contextDetails(turn) : null,
        turn.id ? turnActions(turn) : null,
      ),
    ),
  );
}

function attachmentLabel(fileId) {
  const record = fileRecord(fileId);
  return el("span", { class: "chip small" }, record ? record.filename : "a deleted file");
}

function turnActions(turn) {
  const star = iconButton("star", turn.is_starred ? "Unstar this turn" : "Star this turn (always remembered)", () => toggleStar(turn, star), {
    class: "icon-button star",
    "aria-pressed": String(turn.is_starred),
  });
  return el(
    "div",
    { class: "actions" },
    iconButton("copy", "Copy the answer and its sources", () => copyAnswer(turn)),
    iconButton("retry", "Regenerate this answer (it replaces this one)", () =>
      sendMessage(turn.user_message, { persona: turn.persona, attachments: turn.attachments, replaces: turn })),
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
