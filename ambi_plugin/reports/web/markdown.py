"""The Markdown the report writes, as HTML: for the sections the HTML page takes from the Markdown report as they are
(the switch-head causal check), so whatever that section shows in Markdown (tables, notes, heatmaps and plots) the
page shows too, without a second renderer to keep in step.

Only the Markdown the report itself writes is understood: ATX headings, pipe tables, ``-`` / ``*`` lists, images on
a line of their own, paragraphs, and ``code`` / **bold** inline. Everything is escaped; an image is shown only when
its path is relative and stays inside the report folder (``plots/x.png``), other targets become plain text.
"""

from __future__ import annotations

import html
import re

_IMAGE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")


def inline(text: str) -> str:
    """Escaped text with ``code`` and **bold** spans."""
    out, at = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[at : m.start()]))
        out.append(f"<code>{html.escape(m.group(1))}</code>" if m.group(1) is not None
                   else f"<strong>{html.escape(m.group(2))}</strong>")  # fmt: skip
        at = m.end()
    out.append(html.escape(text[at:]))
    return "".join(out)


def safe_src(src: str) -> bool:
    """A relative path inside the report folder (no scheme, no absolute path, no '..')."""
    return not (":" in src or src.startswith(("/", "\\")) or ".." in src.replace("\\", "/").split("/"))


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def _table(lines: list[str]) -> str:
    rows = [_cells(ln) for ln in lines if not re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", ln)]
    if not rows:
        return ""
    head, body = rows[0], rows[1:]
    out = ["<table><thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in body]
    return "".join(out) + "</tbody></table>"


def to_html(markdown: str, *, heading_offset: int = 0, id_prefix: str = "") -> str:
    """HTML of ``markdown``; headings shifted by ``heading_offset`` levels (at most h6), with ids ``id_prefix-N``."""
    lines = markdown.splitlines()
    out: list[str] = []
    para: list[str] = []
    i, n_head = 0, 0

    def flush() -> None:
        if para:
            out.append("<p>" + "<br>".join(inline(p) for p in para) + "</p>")
            para.clear()

    while i < len(lines):
        line = lines[i].rstrip()
        if not line.strip():
            flush()
        elif m := _HEADING.match(line):
            flush()
            level = min(6, len(m.group(1)) + heading_offset)
            n_head += 1
            ident = f' id="{html.escape(id_prefix)}-{n_head}"' if id_prefix else ""
            out.append(f"<h{level}{ident}>{inline(m.group(2).strip())}</h{level}>")
        elif line.lstrip().startswith("|"):
            flush()
            block = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_table(block))
            continue
        elif re.match(r"^\s*[-*]\s+", line):
            flush()
            items = []
            while i < len(lines) and re.match(r"^\s*[-*]\s+", lines[i]):
                items.append(re.sub(r"^\s*[-*]\s+", "", lines[i].rstrip()))
                i += 1
            out.append("<ul>" + "".join(f"<li>{inline(t)}</li>" for t in items) + "</ul>")
            continue
        elif m := _IMAGE.match(line.strip()):
            flush()
            alt, src = m.group("alt"), m.group("src")
            if safe_src(src):
                out.append(f'<p><img loading="lazy" src="{html.escape(src)}" alt="{html.escape(alt)}"></p>')
            else:
                out.append(f"<p>{inline(line.strip())}</p>")
        else:
            para.append(line.strip())
        i += 1
    flush()
    return "\n".join(out)
