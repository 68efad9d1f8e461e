"""The structure of Markdown and HTML documents: headings, paragraphs, lists and tables.

Markdown is parsed by markdown-it-py (CommonMark with GitHub's tables), HTML by Beautiful Soup
with lxml; both feed a `StructureBuilder`. No markup reaches a segment: raw HTML inside
Markdown is reduced to its visible text, scripts and styles are dropped, and links whose
scheme could run code keep only their label.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, NavigableString, PageElement, Tag

from knowledge.ingest.structure import TERM_LEVEL, Segment, StructureBuilder, clean_cell

DROPPED_HTML_TAGS = (
    "script", "style", "noscript", "template", "head", "iframe", "object", "embed",
    "svg", "canvas", "applet", "frame", "frameset", "meta", "link", "base",
)  # fmt: skip
_UNSAFE_LINK_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
# Links markdown-it refused (an unsafe scheme) stay in the text as written.
_INLINE_LINK = re.compile(
    r"!?\[([^\]\n]*)\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))*)>?(?:\s+[^)\n]*)?\)"
)
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
_OPENING_TAG = re.compile(r"^<\s*([a-zA-Z][\w-]*)")
_CLOSING_TAG = re.compile(r"^<\s*/\s*([a-zA-Z][\w-]*)")
_HEADING_TAGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# Blocks whose edges end a paragraph.
_BLOCK_TAGS = frozenset(
    {
        "p", "div", "section", "article", "main", "aside", "header", "footer", "nav",
        "blockquote", "pre", "figure", "figcaption", "form", "fieldset", "address",
        "hr", "body", "caption", "legend", "center",
    }
)  # fmt: skip
MAX_LIST_DEPTH = 6


def is_unsafe_url(url: str) -> bool:
    """Return whether a link target could run code when followed."""
    compact = re.sub(r"[\s\x00-\x1f]", "", url).lower()
    return compact.startswith(_UNSAFE_LINK_SCHEMES)


def quiet_markup(markup: str) -> str:
    """Return markup Beautiful Soup will not warn about ("looks like a URL or a filename")."""
    return markup if "<" in markup else "<span></span>" + markup


def drop_invisible(soup: BeautifulSoup | Tag) -> None:
    """Remove scripts, styles, embedded objects and comments from a parsed document."""
    for tag in soup.find_all(DROPPED_HTML_TAGS):
        tag.decompose()
    for comment in soup.find_all(string=lambda value: isinstance(value, Comment)):
        comment.extract()


# --- Markdown --------------------------------------------------------------------------


def markdown_structure(markdown: str) -> list[Segment]:
    """Return the segments of a Markdown document."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    tokens = parser.parse(markdown.replace("\x00", ""))
    builder = StructureBuilder()
    lists: list[int] = []  # the next number of each open ordered list, 0 for a bullet list
    item: list[str] = []  # the open list item: marker, depth, then its text parts
    index = 0

    def close_item() -> None:
        if item and len(item) > 2:
            builder.list_item(item[0], " ".join(item[2:]), depth=int(item[1]))
        item.clear()

    def add_text(text: str) -> None:
        if item:
            item.append(text)
        else:
            builder.paragraph(text)

    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        if kind == "heading_open":
            close_item()
            builder.heading(int(token.tag[1]), _inline_text(tokens[index + 1]))
            index += 3
            continue
        if kind == "inline":
            add_text(_inline_text(token))
        elif kind in ("bullet_list_open", "ordered_list_open"):
            close_item()
            start = token.attrGet("start") if kind == "ordered_list_open" else None
            lists.append(int(start or 1) if kind == "ordered_list_open" else 0)
            if len(lists) == 1:
                builder.flush()
        elif kind in ("bullet_list_close", "ordered_list_close"):
            close_item()
            lists.pop()
        elif kind == "list_item_open":
            close_item()
            item.extend([_item_marker(token, lists), str(len(lists) - 1)])
        elif kind == "list_item_close":
            close_item()
        elif kind == "table_open":
            close_item()
            index = _markdown_table(tokens, index, builder)
        elif kind in ("fence", "code_block"):
            # Code inside a step belongs to the step: the list goes on after it.
            add_text(_code_text(token))
        elif kind == "html_block":
            add_text(_html_fragment_text(token.content))
        index += 1
    close_item()
    return builder.build()


def _item_marker(token, lists: list[int]) -> str:
    """Return a list item's marker ("3." or "-"), moving its ordered list's next number on."""
    number = token.info or (str(lists[-1]) if lists and lists[-1] else "")
    if lists and lists[-1]:
        lists[-1] = int(number) + 1 if number.isdigit() else lists[-1] + 1
    return f"{number}." if number else "-"


def _code_text(token) -> str:
    """Return a code block's text, a fenced one with its fences."""
    text = token.content.rstrip("\n")
    if token.type == "fence":
        text = f"{token.markup}{token.info}\n{text}\n{token.markup}"
    return text


def _markdown_table(tokens: list, index: int, builder: StructureBuilder) -> int:
    """Add the table opening at tokens[index]; return the index of its closing token."""
    headers: list[str] = []
    rows: list[list[str]] = []
    in_head = False
    while index < len(tokens) and tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open" and not in_head:
            rows.append([])
        elif token.type == "inline":
            text = _inline_text(token)
            if in_head:
                headers.append(text)
            elif rows:
                rows[-1].append(text)
        index += 1
    builder.table(headers, rows)
    return index


def _inline_text(token) -> str:
    """Return the text of an inline token: links keep their label, raw HTML its text."""
    pieces: list[str] = []
    hidden_until = ""  # a <script> or <style> inline: skip up to its closing tag
    links: list[str] = []
    for child in token.children or []:
        kind = child.type
        if kind == "html_inline":
            opening, closing = _OPENING_TAG.match(child.content), _CLOSING_TAG.match(child.content)
            if hidden_until and closing and closing.group(1).lower() == hidden_until:
                hidden_until = ""
            elif opening and opening.group(1).lower() in DROPPED_HTML_TAGS:
                hidden_until = opening.group(1).lower()
            continue
        if hidden_until:
            continue
        if kind == "text":
            pieces.append(_neutralise_links(child.content))
        elif kind == "code_inline":
            pieces.append(f"{child.markup}{child.content}{child.markup}")
        elif kind in ("softbreak", "hardbreak"):
            pieces.append("\n")
        elif kind == "link_open":
            href = child.attrGet("href") or ""
            links.append("" if child.markup == "autolink" or is_unsafe_url(href) else href)
            if links[-1]:
                pieces.append("[")
        elif kind == "link_close":
            href = links.pop() if links else ""
            if href:
                pieces.append(f"]({href})")
        elif kind == "image":
            pieces.append(child.content)
        elif kind in ("s_open", "s_close"):
            pieces.append("~~")
    # A label with emphasis splits a refused link across pieces: neutralise the whole again.
    return _neutralise_links("".join(pieces)).strip()


def _neutralise_links(text: str) -> str:
    text = _LINK_DEFINITION.sub(lambda m: "" if is_unsafe_url(m.group(1)) else m.group(0), text)
    return _INLINE_LINK.sub(lambda m: m.group(1) if is_unsafe_url(m.group(2)) else m.group(0), text)


def _html_fragment_text(markup: str) -> str:
    soup = BeautifulSoup(quiet_markup(markup), "html.parser")
    drop_invisible(soup)
    return clean_cell(soup.get_text(" "))


# --- HTML --------------------------------------------------------------------------


def html_structure(markup: str) -> list[Segment]:
    """Return the segments of an HTML document; its <title> heads every section."""
    soup = BeautifulSoup(quiet_markup(markup), "lxml")
    # The page's <title>, never an icon's (<svg><title>) in the body.
    head_title = soup.head.find("title") if soup.head else None
    title = clean_cell(head_title.get_text(" ")) if head_title else ""
    drop_invisible(soup)
    builder = StructureBuilder()
    if title:
        builder.heading(0, title)
    _HtmlWalker(builder, title).walk(soup)
    return builder.build()


class _HtmlWalker:
    """Walk a parsed page in reading order with an explicit stack (pages nest thousands deep)."""

    def __init__(self, builder: StructureBuilder, title: str) -> None:
        self.builder = builder
        self.title = title
        self.buffer: list[str] = []
        self.pre_depth = 0

    def walk(self, root: PageElement) -> None:
        stack: list[tuple[PageElement, bool]] = [(root, False)]
        while stack:
            node, leaving = stack.pop()
            if isinstance(node, Tag):
                if self._enter_or_leave(node, leaving):
                    stack.append((node, True))
                    stack.extend((child, False) for child in reversed(node.contents))
            elif type(node) is NavigableString:  # comments, doctypes and CDATA are not text
                text = str(node)
                self.buffer.append(text if self.pre_depth else re.sub(r"\s+", " ", text))
        self.flush()

    def _enter_or_leave(self, node: Tag, leaving: bool) -> bool:
        """Handle a tag; return True when the walk should go into its children."""
        name = node.name
        if leaving:
            if name == "pre":
                self.flush()
                self.pre_depth -= 1
            elif name in _BLOCK_TAGS or name == "details":
                self.flush()
                if name == "details":
                    self.builder.close_terms()
            return False
        if name in _HEADING_TAGS:
            self.flush()
            text = clean_cell(node.get_text(" "))
            if not (_HEADING_TAGS[name] == 1 and text == self.title):
                self.builder.heading(_HEADING_TAGS[name], text)
            return False
        if name == "table":
            self.flush()
            headers, rows, caption = _html_table(node)
            self.builder.table(headers, rows, caption)
            return False
        if name in ("ul", "ol"):
            self.flush()
            # Two lists one after the other are two lists, each numbered from its start.
            self.builder.flush()
            _html_list(node, self.builder)
            self.builder.flush()
            return False
        if name == "dl":
            self.flush()
            self._definitions(node)
            return False
        if name == "summary":
            self.flush()
            self.builder.close_terms()
            self.builder.heading(TERM_LEVEL, node.get_text(" "))
            return False
        if name == "br":
            self.buffer.append("\n")
            return False
        if name == "pre":
            self.flush()
            self.pre_depth += 1
        elif name in _BLOCK_TAGS or name == "details":
            self.flush()
        return True

    def _definitions(self, node: Tag) -> None:
        for child in node.find_all(["dt", "dd"]):
            if child.find_parent("dl") is not node:
                continue
            if child.name == "dt":
                self.builder.close_terms()
                self.builder.heading(TERM_LEVEL, child.get_text(" "))
            else:
                self.builder.paragraph(clean_cell(child.get_text(" ")))
        self.builder.close_terms()

    def flush(self) -> None:
        text = "".join(self.buffer)
        self.buffer = []
        if self.pre_depth:
            self.builder.paragraph(text.strip("\n"))
            return
        lines = [clean_cell(line) for line in text.split("\n")]
        self.builder.paragraph("\n".join(line for line in lines if line))


def _html_table(table: Tag) -> tuple[list[str], list[list[str]], str]:
    """Return a table's header row, data rows and caption; nested tables stay in their cell."""
    caption_tag = table.find("caption")
    caption = (
        clean_cell(caption_tag.get_text(" "))
        if caption_tag and caption_tag.find_parent("table") is table
        else ""
    )
    headers: list[str] = []
    rows: list[list[str]] = []
    for row in table.find_all("tr"):
        if row.find_parent("table") is not table:
            continue
        cells = [cell for cell in row.find_all(["th", "td"]) if cell.find_parent("tr") is row]
        texts = [clean_cell(cell.get_text(" ")) for cell in cells]
        in_head = row.find_parent("thead") is not None and row.find_parent("table") is table
        all_th = bool(cells) and all(cell.name == "th" for cell in cells)
        if not headers and not rows and (in_head or all_th):
            headers = texts
        elif any(texts):
            rows.append(texts)
    return headers, rows, caption


def _html_list(root: Tag, builder: StructureBuilder) -> None:
    """Add a list's items in order, nested lists one level deeper, numbers as the page shows."""
    stack: list[tuple[Tag, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.name in ("ul", "ol"):
            number = _int(node.get("start"), 1) if node.name == "ol" else 0
            items = [child for child in node.children if isinstance(child, Tag)]
            loose = " ".join(
                str(child) for child in node.children if type(child) is NavigableString
            )
            if clean_cell(loose):
                builder.list_item("-", clean_cell(loose), depth)
            pending: list[tuple[Tag, int]] = []
            for child in items:
                if child.name != "li":
                    if child.name in ("ul", "ol") and depth < MAX_LIST_DEPTH:
                        pending.append((child, depth + 1))
                    elif clean_cell(child.get_text(" ")):
                        # Invalid but seen: text or a wrapper straight inside the list.
                        child.attrs["data-adrag-marker"] = "-"
                        pending.append((child, depth))
                    continue
                if node.name == "ol":
                    number = _int(child.get("value"), number)
                marker = f"{number}." if node.name == "ol" else "-"
                number += 1
                pending.append((child, depth))
                child.attrs["data-adrag-marker"] = marker
            stack.extend(reversed(pending))
            continue
        # A list item: its own text, then its nested lists.
        text_parts: list[str] = []
        nested: list[tuple[Tag, int]] = []
        for child in node.children:
            if isinstance(child, Tag) and child.name in ("ul", "ol") and depth < MAX_LIST_DEPTH:
                nested.append((child, depth + 1))
            elif isinstance(child, Tag):
                text_parts.append(child.get_text(" "))
            elif type(child) is NavigableString:
                text_parts.append(str(child))
        builder.list_item(
            node.attrs.get("data-adrag-marker", "-"), clean_cell(" ".join(text_parts)), depth
        )
        stack.extend(reversed(nested))


def _int(value, default: int) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default
