// The workbench's code editor: CodeMirror 6 laid over a plain textarea, bundled by scripts/assets.sh
// (esbuild) into static/lib/editor.min.js. The textarea is the real form field; the editor is an
// enhancement, and a reader without script edits and posts the textarea itself.
//
// The page's side of the contract:
//
//   <form method="post" action="...">
//     <label for="SRC">Handler</label>
//     <textarea id="SRC" name="source" data-editor="starlark" rows="18">def handle(...)...</textarea>
//     <ol data-editor-errors="SRC">
//       <li data-line="3" data-col="5">undefined: tx</li>
//     </ol>
//   </form>
//
// - Every textarea[data-editor="starlark"] with an id becomes an editor. The textarea stays in the
//   form, hidden, and holds the editor's text after every change, so a plain post, htmx's
//   hx-include and FormData all send what the reader sees. Its label names the editor.
// - The errors element is any element with data-editor-errors set to the textarea's id, anywhere
//   in the page (the server's answer to Check, swapped in by htmx). Each child with data-line is
//   one error: data-line is 1-based; data-col is 1-based in Unicode code points, as Starlark
//   counts them, and may be left out (the mark then covers the line); the child's text is the
//   message. data-line="0" (an error of the whole handler, such as its size) is listed by the page
//   but marks no line. A line or column past the end marks the last one there is.
// - The editor shows each error as a diagnostic: a mark in the gutter beside the line and an
//   underline from the column to the end of the word there. As soon as the reader edits a marked
//   line its mark goes, and the editor sets data-edited on that child of the errors element so the
//   page's list can show that the message may be stale.
// - window.eoEditor.focus(id) puts the cursor in the editor of the textarea with that id and
//   reports whether there is one.
// - window.eoEditor.mount(root) makes editors of the textareas under root (or root itself) that are
//   not editors yet, forgets editors whose textarea left the page, and reads every editor's errors
//   element again. It is idempotent and does nothing on a page without such a textarea, so
//   static/app.js calls it after every htmx swap; the script also calls it once on load.
//
// Styles: the page's CSP allows style sheets from the site only ("style-src 'self'", inline style
// attributes aside). CodeMirror injects its styles with style-mod, which writes a <style> element
// into a document's head (the CSP blocks it) but adopts a constructed style sheet into a shadow
// root (CSSOM, which the CSP does not govern). So each editor lives in a shadow root on its own
// host element, and its themes read the site's colours from the custom properties that app.css
// sets, which inherit into the shadow tree.

import { minimalSetup } from "codemirror";
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter } from "@codemirror/view";
import { EditorState, Compartment } from "@codemirror/state";
import { HighlightStyle, syntaxHighlighting, bracketMatching, indentOnInput, indentUnit } from "@codemirror/language";
import { indentWithTab } from "@codemirror/commands";
import { lintGutter, lintKeymap, setDiagnostics, setDiagnosticsEffect, forEachDiagnostic } from "@codemirror/lint";
import { python } from "@codemirror/lang-python";
import { tags as t } from "@lezer/highlight";

const SELECTOR = 'textarea[data-editor="starlark"]';

// editors maps each enhanced textarea to its view, host and hint.
const editors = new Map();

// The token colours are the code blocks' (app.css, .chroma), so a handler in the editor looks like
// the same code printed in the prose.
function highlightFor(dark) {
  const c = dark
    ? { keyword: "#d7a6ff", builtin: "#66d9e8", fn: "#8ab4ff", string: "#9be37f", comment: "#9aa3ad", number: "#ffb870" }
    : { keyword: "#a626a4", builtin: "#0b7285", fn: "#1f5fbf", string: "#2a7b1c", comment: "#5f6670", number: "#9a4d00" };
  return HighlightStyle.define([
    { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword, t.bool, t.null, t.self], color: c.keyword, fontWeight: "600" },
    { tag: [t.standard(t.variableName), t.className], color: c.builtin },
    { tag: [t.function(t.definition(t.variableName)), t.function(t.variableName), t.function(t.propertyName)], color: c.fn },
    { tag: [t.string, t.special(t.string)], color: c.string },
    { tag: t.comment, color: c.comment, fontStyle: "italic" },
    { tag: t.number, color: c.number },
    { tag: t.invalid, color: "var(--bad)" },
  ]);
}

// The frame, gutter and selection follow the site's palette (custom properties inherit into the
// shadow root); dark tells CodeMirror's own defaults (cursor, tooltips, lint colours) which
// scheme they sit on.
function themeFor(dark) {
  const minHeight = "var(--editor-min-height, 14rem)";
  return EditorView.theme({
    "&": { color: "var(--fg)", backgroundColor: "var(--panel)", fontSize: "0.92rem" },
    "&.cm-focused": { outline: "none" },
    ".cm-scroller": { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace', lineHeight: "1.5" },
    ".cm-content": { minHeight: minHeight, caretColor: "var(--fg)", padding: "0.4rem 0" },
    ".cm-gutter": { minHeight: minHeight },
    ".cm-gutters": { backgroundColor: "var(--code-bg)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
    ".cm-activeLine": { backgroundColor: dark ? "#ffffff0a" : "#0000000a" },
    ".cm-activeLineGutter": { backgroundColor: dark ? "#ffffff14" : "#00000010", color: "var(--fg)" },
    ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--fg)" },
    "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection": {
      backgroundColor: dark ? "#7db4ff40" : "#0b5cad33",
    },
    "&.cm-focused .cm-matchingBracket": { backgroundColor: dark ? "#7db4ff38" : "#0b5cad26", outline: "1px solid var(--accent)" },
    "&.cm-focused .cm-nonmatchingBracket": { backgroundColor: "var(--bad-bg)", outline: "1px solid var(--bad)" },
    ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--line)", borderRadius: "6px" },
    ".cm-diagnostic": { fontFamily: "system-ui, sans-serif" },
    ".cm-diagnostic-error": { borderLeftColor: "var(--bad)" },
    ".cm-lint-marker": { width: "0.9em", height: "0.9em" },
  }, { dark });
}

function schemeIsDark() {
  return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
}

// positionOf turns a 1-based line and a 1-based column counted in code points into a document
// offset (CodeMirror counts UTF-16 units), past-the-end values clamped to the last line or column.
function positionOf(doc, lineNo, col) {
  const line = doc.line(Math.min(Math.max(lineNo, 1), doc.lines));
  if (!(col > 1)) return { line, pos: line.from + (line.text.length - line.text.trimStart().length) };
  let units = 0;
  let points = 1;
  for (const ch of line.text) {
    if (points >= col) break;
    units += ch.length;
    points++;
  }
  return { line, pos: line.from + units };
}

// errorsFor reads the errors element of the textarea with the given id into diagnostics, each
// remembering the element it came from.
function errorsFor(id, state) {
  const list = document.querySelector('[data-editor-errors="' + CSS.escape(id) + '"]');
  if (!list) return { list: null, diagnostics: [] };
  const diagnostics = [];
  list.querySelectorAll("[data-line]").forEach(function (item) {
    const lineNo = parseInt(item.getAttribute("data-line"), 10);
    if (!(lineNo > 0) || item.hasAttribute("data-edited")) return;
    const col = parseInt(item.getAttribute("data-col"), 10);
    const { line, pos } = positionOf(state.doc, lineNo, col);
    const word = state.wordAt(pos);
    let to = word && word.from === pos ? word.to : line.to;
    if (to <= pos && !(col > 1)) to = line.to;
    diagnostics.push({
      from: pos,
      to: Math.max(pos, to),
      severity: "error",
      source: "check",
      message: item.textContent.trim().replace(/\s+/g, " "),
      item: item,
    });
  });
  return { list, diagnostics };
}

// clearEditedLines drops, in the same transaction as the edit, the diagnostics on every line the
// edit touched, and marks their items in the errors element as edited; the others move with the
// text.
const clearEditedLines = EditorState.transactionExtender.of(function (tr) {
  if (!tr.docChanged) return null;
  const before = tr.startState;
  const kept = [];
  let dropped = false;
  forEachDiagnostic(before, function (d, from, to) {
    const first = before.doc.lineAt(from);
    const last = before.doc.lineAt(to);
    let touched = false;
    tr.changes.iterChangedRanges(function (fromA, toA) {
      if (fromA <= last.to && toA >= first.from) touched = true;
    });
    if (touched) {
      dropped = true;
      if (d.item) d.item.setAttribute("data-edited", "");
      return;
    }
    kept.push(Object.assign({}, d, { from: tr.changes.mapPos(from, 1), to: tr.changes.mapPos(to, -1) }));
  });
  return dropped ? { effects: setDiagnosticsEffect.of(kept) } : null;
});

function labelOf(textarea) {
  const label = textarea.id ? document.querySelector('label[for="' + CSS.escape(textarea.id) + '"]') : null;
  const text = (label && label.textContent) || textarea.getAttribute("aria-label") || "Handler source";
  return { label, text: text.trim().replace(/\s+/g, " ") };
}

function create(textarea) {
  const { label, text } = labelOf(textarea);
  const host = document.createElement("div");
  host.className = "editor";
  host.setAttribute("data-editor-view", textarea.id);
  const shadow = host.attachShadow({ mode: "open" });

  const hint = document.createElement("p");
  hint.className = "editor-hint";
  hint.textContent = "Tab indents and Shift-Tab outdents. To move on with the keyboard, press Esc, then Tab.";

  const theme = new Compartment();
  const scheme = function (dark) { return [themeFor(dark), syntaxHighlighting(highlightFor(dark))]; };
  const contentAttrs = { "aria-label": text };
  const state = EditorState.create({
    doc: textarea.value,
    extensions: [
      // Undo history, the default keys, special characters shown, the drawn selection.
      minimalSetup,
      lineNumbers(),
      highlightActiveLineGutter(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      indentUnit.of("    "),
      EditorState.tabSize.of(4),
      // Long lines wrap rather than scroll sideways: on a phone a scroller inside the shadow root
      // is a region a keyboard cannot reach (axe's scrollable-region-focusable), and a wrapped
      // line keeps its one number in the gutter.
      EditorView.lineWrapping,
      python(),
      theme.of(scheme(schemeIsDark())),
      lintGutter(),
      clearEditedLines,
      keymap.of([indentWithTab, ...lintKeymap]),
      EditorView.contentAttributes.of(contentAttrs),
      EditorState.readOnly.of(textarea.readOnly),
      EditorView.editable.of(!textarea.readOnly && !textarea.disabled),
      // The textarea is the form's field: it holds the text at every change, and tells listeners
      // on it (an hx-trigger, a page's "unsaved" cue) as the reader's typing would.
      EditorView.updateListener.of(function (u) {
        if (u.docChanged) {
          textarea.value = u.state.doc.toString();
          textarea.dispatchEvent(new Event("input", { bubbles: true }));
        }
      }),
    ],
  });

  textarea.insertAdjacentElement("afterend", host);
  host.insertAdjacentElement("afterend", hint);
  const view = new EditorView({ state, parent: shadow });
  textarea.hidden = true;
  textarea.setAttribute("data-editor-ready", "");

  const ed = { textarea, view, host, hint, theme, scheme, label };
  // The label points at the hidden textarea; a click on it goes to the editor instead.
  if (label) {
    ed.focusFromLabel = function (ev) { ev.preventDefault(); view.focus(); };
    label.addEventListener("click", ed.focusFromLabel);
  }
  editors.set(textarea, ed);
  return ed;
}

// describe ties the hint and the errors list to the editor's text for a screen reader. An IDREF
// (aria-describedby) does not reach from the shadow tree out to the page; element references do,
// where the browser has them.
function describe(ed, list) {
  if (!("ariaDescribedByElements" in Element.prototype)) return;
  ed.view.contentDOM.ariaDescribedByElements = list ? [ed.hint, list] : [ed.hint];
}

// refresh shows the errors element's errors on the editor when the element or its items are new
// (a swap); the same items again keep what the reader's edits cleared.
function refresh(ed) {
  const { list, diagnostics } = errorsFor(ed.textarea.id, ed.view.state);
  const items = list ? [...list.children] : [];
  if (ed.list !== undefined && list === ed.list && items.length === ed.items.length && items.every(function (el, i) { return el === ed.items[i]; })) return;
  ed.list = list;
  ed.items = items;
  describe(ed, list);
  ed.view.dispatch(setDiagnostics(ed.view.state, diagnostics));
}

function forget(ed) {
  if (ed.label) ed.label.removeEventListener("click", ed.focusFromLabel);
  ed.view.destroy();
  ed.host.remove();
  ed.hint.remove();
  editors.delete(ed.textarea);
}

// mount is the whole API: see the contract at the top.
function mount(root) {
  // Without shadow roots the editor could not be styled under the CSP: the textarea stays.
  if (typeof Element.prototype.attachShadow !== "function") return;
  root = root || document;
  for (const ed of [...editors.values()]) {
    if (!ed.textarea.isConnected) forget(ed);
  }
  const found = [];
  if (root.matches && root.matches(SELECTOR)) found.push(root);
  if (root.querySelectorAll) found.push(...root.querySelectorAll(SELECTOR));
  for (const textarea of found) {
    if (textarea.id && !editors.has(textarea)) create(textarea);
  }
  for (const ed of editors.values()) refresh(ed);
}

const media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
if (media && media.addEventListener) {
  media.addEventListener("change", function () {
    for (const ed of editors.values()) ed.view.dispatch({ effects: ed.theme.reconfigure(ed.scheme(media.matches)) });
  });
}

// focus puts the cursor in the editor of the textarea with the given id, reporting whether there
// is one (a page that loads the form later, such as a block's "Edit and check", moves focus there).
function focus(id) {
  for (const ed of editors.values()) {
    if (ed.textarea.id === id && ed.textarea.isConnected) {
      ed.view.focus();
      return true;
    }
  }
  return false;
}

window.eoEditor = { mount, focus };

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", function () { mount(document); });
} else {
  mount(document);
}
