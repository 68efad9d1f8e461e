// Answers as Markdown: parsed by marked, sanitised by DOMPurify, code highlighted by
// highlight.js (all vendored in static/vendor/, see its README). The model's text is
// untrusted: raw HTML is shown as text, images become links, and DOMPurify then removes
// anything executable that marked's own output could carry; links must be http(s) and open
// in a new tab without a referrer; `[n]` citations become the links the caller makes, except
// inside code.
(function () {
  "use strict";
  var A = window.Adrag;
  var FORBID_TAGS = ["img", "picture", "source", "style", "iframe", "frame", "object", "embed", "form",
    "input", "button", "textarea", "select", "option", "svg", "math", "video", "audio", "canvas", "link", "meta", "base"];
  var CITATION = /\[(\d+(?:\s*[,;]\s*\d+)*)\]/g;
  var NO_CITATIONS_INSIDE = { CODE: true, PRE: true, A: true };

  if (window.DOMPurify) {
    window.DOMPurify.addHook("afterSanitizeAttributes", function (node) {
      if (node.tagName !== "A") return;
      var href = node.getAttribute("href");
      if (!href || !A.isSafeUrl(href)) {
        node.removeAttribute("href");
        return;
      }
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    });
  }
  if (window.hljs) window.hljs.configure({ ignoreUnescapedHTML: true });

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // Raw HTML in an answer is shown as the text it is, never parsed: even a parser's inert
  // document fetches an <img> and fires its handler (which the CSP then blocks, loudly).
  // An image becomes a link to it, so an answer cannot make the browser call out by itself.
  var parser = window.marked ? new window.marked.Marked({
    gfm: true,
    breaks: false,
    async: false,
    renderer: {
      html: function (token) { return escapeHtml(token.text); },
      image: function (token) {
        return '<a href="' + escapeHtml(token.href || "") + '">' + escapeHtml(token.text || token.href || "image") + "</a>";
      }
    }
  }) : null;

  function textNodes(root) {
    var nodes = [];
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        for (var parent = node.parentNode; parent && parent !== root; parent = parent.parentNode) {
          if (NO_CITATIONS_INSIDE[parent.nodeName]) return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      }
    });
    while (walker.nextNode()) nodes.push(walker.currentNode);
    return nodes;
  }

  // Replace `[n]` (and `[1, 2]`) in text nodes with what `cite(n)` returns (null: keep "[n]").
  function linkCitations(root, cite) {
    textNodes(root).forEach(function (node) {
      var text = node.nodeValue;
      CITATION.lastIndex = 0;
      if (!CITATION.test(text)) return;
      CITATION.lastIndex = 0;
      var fragment = document.createDocumentFragment();
      var last = 0;
      var match;
      while ((match = CITATION.exec(text)) !== null) {
        if (match.index > last) fragment.appendChild(document.createTextNode(text.slice(last, match.index)));
        match[1].split(/\s*[,;]\s*/).forEach(function (n) {
          fragment.appendChild(cite(n) || document.createTextNode("[" + n + "]"));
        });
        last = CITATION.lastIndex;
      }
      if (last < text.length) fragment.appendChild(document.createTextNode(text.slice(last)));
      node.parentNode.replaceChild(fragment, node);
    });
  }

  // Render `text` as sanitised Markdown into `target` (cleared first).
  function renderMarkdown(text, target, cite) {
    A.clear(target);
    if (!parser || !window.DOMPurify) {
      // The vendored libraries failed to load: show the text as text, never as HTML.
      A.append(target, A.el("p", { className: "answer-plain", text: text }));
      return target;
    }
    var html = parser.parse(String(text));
    var fragment = window.DOMPurify.sanitize(html, {
      RETURN_DOM_FRAGMENT: true,
      FORBID_TAGS: FORBID_TAGS,
      FORBID_ATTR: ["style", "srcset", "formaction", "xlink:href"],
      ALLOW_DATA_ATTR: false
    });
    fragment.querySelectorAll("pre code").forEach(function (block) {
      if (window.hljs) window.hljs.highlightElement(block);
    });
    fragment.querySelectorAll("table").forEach(function (table) {
      var wrapper = A.el("div", { className: "table-scroll" });
      table.parentNode.replaceChild(wrapper, table);
      wrapper.appendChild(table);
    });
    if (cite) linkCitations(fragment, cite);
    target.appendChild(fragment);
    return target;
  }

  A.renderMarkdown = renderMarkdown;
})();
