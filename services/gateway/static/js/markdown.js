// Answers as safe markdown: marked renders, DOMPurify sanitises, then [Ref: N] become chips.

import DOMPurify from "../vendor/dompurify/purify.es.mjs";
import { marked } from "../vendor/marked/marked.esm.js";
import { el } from "./ui.js";

const REF = /\[Ref:\s*(\d+)\]/g;
const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

// Answers quote files verbatim: HTML in them is text to show, never markup to run or render.
marked.use({ renderer: { html: ({ text }) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]) } });

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/**
 * Render `text` into `container`. `citations` maps N to a citation; `onCite(citation)` opens one.
 * A [Ref: N] with no citation (still streaming, or unknown) stays a plain, inert label.
 */
export function renderMarkdown(container, text, citations = new Map(), onCite = () => {}) {
  const html = marked.parse(text, { gfm: true, breaks: true, async: false });
  container.innerHTML = DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "img", "form"] });
  linkCitations(container, citations, onCite);
}

function linkCitations(container, citations, onCite) {
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) {
    if (REF.test(walker.currentNode.nodeValue)) nodes.push(walker.currentNode);
    REF.lastIndex = 0;
  }
  for (const node of nodes) {
    const parts = [];
    let last = 0;
    for (const match of node.nodeValue.matchAll(REF)) {
      parts.push(node.nodeValue.slice(last, match.index));
      parts.push(citationChip(Number(match[1]), citations.get(Number(match[1])), onCite));
      last = match.index + match[0].length;
    }
    parts.push(node.nodeValue.slice(last));
    node.replaceWith(...parts.filter((part) => part !== ""));
  }
}

export function citationChip(ref, citation, onCite) {
  if (!citation) return el("span", { class: "cite pending" }, `[${ref}]`);
  const where = citation.file_id ? citation.filename : citation.fact_id ? "what Artisan knows" : "our conversation";
  return el(
    "button",
    {
      type: "button",
      class: "cite",
      dataset: { ref: String(ref) },
      "aria-label": `Source ${ref}: ${where}${citation.title ? `, ${citation.title}` : ""}`,
      title: `${where}${citation.title ? ` — ${citation.title}` : ""}`,
      onclick: () => onCite(citation),
    },
    String(ref),
  );
}
