// What an answer offers besides its text: copying it with its sources, and the context it was
// built from (kept with the turn, so it is there again after a reload).

import { openCitation } from "./citation.js";
import { el, lineRange, notify, reportError } from "./ui.js";

const REF = /\[Ref:\s*(\d+)\]/g;

/** Where a citation points, in words: a file's passage, a memory fact or a past conversation. */
export function sourceLabel(citation) {
  if (citation.file_id) {
    const title = citation.title ? ` — ${citation.title}` : "";
    const lines = citation.line_start ? `, ${lineRange(citation.line_start, citation.line_end)}` : "";
    return `${citation.filename}${title}${lines}`;
  }
  if (citation.fact_id) return `Memory — ${citation.title}: ${citation.snippet}`;
  return `Past conversation — ${citation.title}`;
}

/** The numbered list of an answer's sources, each opening its passage. */
export function sourceList(citations) {
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
          sourceLabel(citation),
        ),
      ),
    ),
  );
}

/** The answer as text to paste elsewhere: markers as [N], the sources as a numbered list. */
export function answerAsText(turn) {
  const body = turn.ai_response.replace(REF, "[$1]").trim();
  const sources = (turn.citations ?? []).map((citation) => `${citation.ref}. ${sourceLabel(citation)}`);
  return sources.length ? `${body}\n\nSources:\n${sources.join("\n")}` : body;
}

export async function copyAnswer(turn) {
  try {
    await navigator.clipboard.writeText(answerAsText(turn));
    notify("Copied the answer and its sources.");
  } catch (error) {
    reportError(error, "Copying the answer");
  }
}

/** The "Context" expander: which sections built the answer, and the model's token counts. */
export function contextDetails(turn) {
  const sections = turn.context_sections ?? [];
  const tokens = sections.reduce((sum, section) => sum + Number(section.tokens || 0), 0);
  const removed = turn.removed?.length ?? 0;
  const note = removed ? ` · The check removed ${removed} unsupported sentence${removed > 1 ? "s" : ""}.` : "";
  return el(
    "details",
    { class: "context-used" },
    el("summary", {}, `Context: ${tokens} tokens${note}`),
    el("p", {}, sections.map((section) => `${section.name} ${section.tokens}`).join(" · ") || "no context"),
    el("p", {}, `${turn.model}: ${turn.prompt_tokens} prompt + ${turn.completion_tokens} answer tokens`),
  );
}
