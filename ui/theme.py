"""How the UI looks: the theme (system fonts, nothing fetched from the internet), CSS and the citation script."""

from __future__ import annotations

import gradio as gr

__all__ = ["THEME", "CSS", "CITATION_JS"]

_SANS = [
    "ui-sans-serif",
    "system-ui",
    "-apple-system",
    "Segoe UI",
    "Roboto",
    "Helvetica",
    "Arial",
    "sans-serif",
]
_MONO = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"]

THEME = gr.themes.Soft(
    primary_hue="indigo",
    secondary_hue="slate",
    neutral_hue="slate",
    font=_SANS,
    font_mono=_MONO,
    radius_size="md",
)

CSS = """
.gradio-container { max-width: 1400px !important; margin: 0 auto; }
#pc-header h1 { margin: 0; font-size: 1.5rem; }
#pc-header .pc-sub { color: var(--body-text-color-subdued); font-size: .92rem; margin-top: 2px; }
#pc-status { min-height: 1.5em; font-size: .88rem; color: var(--body-text-color-subdued); }
#pc-status ul { margin: 0; padding-left: 1.1em; }
#pc-chat a[href^="#src-"] { text-decoration: none; font-weight: 600; padding: 0 1px;
  color: var(--color-accent); cursor: pointer; }
#pc-chat a[href^="#src-"]:hover { text-decoration: underline; }
#pc-chat table { font-size: .88rem; }
#pc-chat table td:first-child, #pc-chat table th:first-child { white-space: nowrap; font-weight: 600; }
#pc-side { position: sticky; top: 8px; align-self: flex-start; }
.pc-bars { display: flex; flex-direction: column; gap: 3px; font-size: .8rem; margin: 4px 0 8px; }
.pc-bars-title { font-weight: 600; margin-bottom: 2px; }
.pc-bar-row { display: grid; grid-template-columns: minmax(0, 42%) 1fr auto; gap: 8px; align-items: center; }
.pc-bar-label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.pc-bar-track { height: 12px; background: var(--background-fill-secondary); border-radius: 3px; }
.pc-bar { display: block; height: 100%; min-width: 2px; background: var(--color-accent); border-radius: 3px; }
.pc-bar-n { color: var(--body-text-color-subdued); white-space: nowrap; font-variant-numeric: tabular-nums; }
.pc-bar-more { color: var(--body-text-color-subdued); font-size: .75rem; }
.pc-sources { display: flex; flex-direction: column; gap: 10px; max-height: calc(100vh - 170px);
  min-height: 120px; overflow-y: auto; padding-right: 6px; scroll-behavior: smooth; }
#pc-toolbar { align-items: center; }
#pc-toolbar button { max-width: 180px; }
.pc-empty { color: var(--body-text-color-subdued); padding: 24px 12px; text-align: center;
  border: 1px dashed var(--border-color-primary); border-radius: 8px; }
.pc-head { font-weight: 600; font-size: .8rem; text-transform: uppercase; letter-spacing: .05em;
  color: var(--body-text-color-subdued); margin-top: 4px; }
.pc-card { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 10px 12px;
  background: var(--background-fill-primary); scroll-margin-top: 8px; transition: box-shadow .3s; }
.pc-card.pc-flash { box-shadow: 0 0 0 3px var(--color-accent-soft), 0 0 0 1px var(--color-accent); }
.pc-title { font-weight: 600; line-height: 1.3; }
.pc-n { color: var(--color-accent); margin-right: 2px; }
.pc-meta { font-size: .82rem; color: var(--body-text-color-subdued); margin: 2px 0 4px; }
.pc-status { font-size: .72rem; font-weight: 600; padding: 0 7px; border-radius: 999px; margin-left: 4px;
  border: 1px solid var(--border-color-primary); text-transform: uppercase; letter-spacing: .03em; }
.pc-status-oral { background: #fde68a; color: #78350f; border-color: #f59e0b; }
.pc-status-spotlight { background: #dbeafe; color: #1e3a8a; border-color: #60a5fa; }
.pc-authors { font-size: .82rem; margin: 1px 0; }
.pc-topics { font-size: .78rem; color: var(--body-text-color-subdued); margin: 1px 0 2px; }
.pc-loaded { font-size: .8rem; color: var(--body-text-color-subdued); margin-top: 2px; }
.pc-links { display: flex; flex-wrap: wrap; gap: 6px; margin: 4px 0; }
.pc-link { font-size: .78rem; padding: 1px 8px; border-radius: 999px; text-decoration: none;
  border: 1px solid var(--border-color-primary); color: var(--body-text-color); }
.pc-code { background: var(--color-accent-soft); }
.pc-card details summary { cursor: pointer; font-size: .8rem; color: var(--body-text-color-subdued); }
.pc-abstract { font-size: .86rem; line-height: 1.45; margin-top: 4px; }
.pc-abstract mark { background: #fde68a; color: inherit; padding: 0 1px; border-radius: 2px; }
.pc-stats table { border-collapse: collapse; margin-top: 10px; min-width: 240px; }
.pc-stats td, .pc-stats th { padding: 5px 18px 5px 0; text-align: left; border: none !important;
  border-bottom: 1px solid var(--border-color-primary) !important; }
.pc-stats .pc-big { font-size: 1.4rem; font-weight: 600; }
#pc-keynote { font-size: .82rem; color: var(--body-text-color-subdued); }
.pc-star { font-size: .74rem; margin-left: 6px; padding: 0 8px; border-radius: 999px; cursor: pointer;
  border: 1px solid var(--border-color-primary); background: transparent; color: var(--body-text-color); }
.pc-star[aria-pressed="true"] { background: #fde68a; color: #78350f; border-color: #f59e0b; }
.pc-reading { max-height: 30vh; overflow-y: auto; font-size: .86rem; }
.pc-reading.pc-empty { padding: 8px; font-size: .82rem; }
.pc-reading ol { margin: 0; padding-left: 1.4em; }
.pc-reading-item { margin: 2px 0 4px; }
.pc-reading-item .pc-title { font-weight: 600; }
.pc-reading-item .pc-meta { display: inline; margin: 0; }
.pc-unstar { border: none; background: transparent; cursor: pointer; color: var(--body-text-color-subdued);
  padding: 0 4px; }
.pc-unstar:hover { color: var(--color-red-500, #ef4444); }
"""

# Installed once by the sources panel: a click on a citation marker [n] in the chat scrolls the panel to
# the source card #src-n (inside the panel, not the page) and flashes it, instead of following the link.
CITATION_JS = """
if (!window.__paperchatCitations) {
  window.__paperchatCitations = true;
  document.addEventListener("click", (event) => {
    const link = event.target.closest ? event.target.closest('a[href^="#src-"]') : null;
    if (!link) return;
    event.preventDefault();
    event.stopPropagation();
    const card = document.getElementById(link.getAttribute("href").slice(1));
    if (!card) return;
    const box = card.closest(".pc-sources");
    if (box) {
      box.scrollTop += card.getBoundingClientRect().top - box.getBoundingClientRect().top - 4;
      box.scrollIntoView({block: "nearest"});
    } else {
      card.scrollIntoView({block: "start"});
    }
    card.classList.remove("pc-flash");
    void card.offsetWidth;
    card.classList.add("pc-flash");
    setTimeout(() => card.classList.remove("pc-flash"), 1600);
  }, true);
}
"""
