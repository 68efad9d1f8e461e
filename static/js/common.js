// Helpers shared by the portal's pages: safe DOM building, the JSON API with CSRF, formatting.
// Every untrusted string reaches the page through textContent or a checked attribute, never innerHTML.
(function () {
  "use strict";

  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  // el("a", {href: "/x", className: "y", dataset: {id: 1}, onclick: fn}, ["text", child])
  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (key) {
        var value = props[key];
        if (value === undefined || value === null || value === false) return;
        if (key === "className") node.className = value;
        else if (key === "text") node.textContent = value;
        else if (key === "dataset") Object.keys(value).forEach(function (k) { node.dataset[k] = value[k]; });
        else if (key.slice(0, 2) === "on" && typeof value === "function") node.addEventListener(key.slice(2), value);
        else if (key === "href") node.setAttribute("href", safeHref(value));
        else if (value === true) node.setAttribute(key, "");
        else node.setAttribute(key, String(value));
      });
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    if (children === undefined || children === null) return node;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (child) {
      if (child === undefined || child === null || child === false) return;
      node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    });
    return node;
  }

  function clear(node) {
    while (node && node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  // Only same-site paths, fragments and http(s) URLs become links; anything else (javascript:,
  // data:, vbscript:) is neutralised.
  function safeHref(value) {
    var href = String(value || "").trim();
    if (/^(#|\/(?!\/)|\?)/.test(href)) return href;
    if (/^https?:\/\//i.test(href)) return href;
    return "#";
  }

  function isSafeUrl(value) {
    return /^https?:\/\/[^\s]+$/i.test(String(value || "").trim());
  }

  function ApiError(status, body) {
    this.status = status;
    this.body = body || {};
    this.code = this.body.code || "http_" + status;
    this.message = this.body.error || this.body.detail || "The server answered " + status + ".";
  }
  ApiError.prototype.toString = function () { return this.message; };

  // fetch a JSON API path; rejects with an ApiError carrying the {error, code} body.
  function api(path, options) {
    options = options || {};
    var method = (options.method || "GET").toUpperCase();
    var headers = { Accept: "application/json" };
    var body = options.body;
    if (body !== undefined && !(body instanceof FormData)) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(body);
    }
    if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = csrfToken();
    return fetch(path, { method: method, headers: headers, body: body, credentials: "same-origin" }).then(function (res) {
      if (res.status === 204) return null;
      return res.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: "The server answered " + res.status + " with a page, not JSON." }; }
        if (!res.ok) throw new ApiError(res.status, data);
        return data;
      });
    }, function (err) {
      throw new ApiError(0, { error: "The server could not be reached (" + err.message + ").", code: "network" });
    });
  }

  function formatDuration(ms) {
    if (ms === null || ms === undefined || isNaN(ms)) return "—";
    ms = Math.max(0, ms);
    if (ms < 1000) return Math.round(ms) + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
    var minutes = Math.floor(ms / 60000);
    return minutes + " min " + Math.round((ms % 60000) / 1000) + " s";
  }

  function formatBytes(bytes) {
    if (!bytes && bytes !== 0) return "—";
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1024 * 1024) return (bytes / 1024).toFixed(1) + " KB";
    return (bytes / 1024 / 1024).toFixed(1) + " MB";
  }

  function formatTime(iso) {
    if (!iso) return "—";
    var date = new Date(iso);
    if (isNaN(date)) return iso;
    return date.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  function formatNumber(value) {
    if (value === null || value === undefined || value === "") return "—";
    return Number(value).toLocaleString();
  }
  // A model as a picker shows it: a GGUF file without its folder and extension, its quantisation
  // apart ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" is "qwen2.5-coder-1.5b-instruct · Q4_K_M").
  function modelLabel(model, defaultModel) {
    var text = String(model || "").split("/").pop();
    if (/\.gguf$/i.test(text)) {
      text = text.replace(/\.gguf$/i, "");
      var quant = /[-._]((?:i?q|f|bf)\d[\w]*)$/i.exec(text);
      if (quant) text = text.slice(0, quant.index) + " · " + quant[1].toUpperCase();
    }
    return text + (model === defaultModel ? " (default)" : "");
  }
  // "1 chunk", "3 chunks", "1 entity", "2 entities": a count and its noun, agreeing.
  function plural(count, word, many) {
    var n = Number(count) || 0;
    return formatNumber(n) + " " + (n === 1 ? word : many || word + "s");
  }

  // The user's default provider and model, remembered in this browser.
  var DEFAULT_KEY = "adrag-default-provider";
  function loadDefault() {
    try {
      var raw = localStorage.getItem(DEFAULT_KEY);
      var value = raw ? JSON.parse(raw) : null;
      if (value && typeof value.provider === "string") return { provider: value.provider, model: typeof value.model === "string" ? value.model : "" };
    } catch (e) { /* unreadable storage is no default */ }
    return null;
  }
  function saveDefault(provider, model) {
    try { localStorage.setItem(DEFAULT_KEY, JSON.stringify({ provider: provider, model: model || "" })); } catch (e) { return false; }
    return true;
  }

  function chip(label, value, tone) {
    var node = el("span", { className: "chip" + (tone ? " " + tone : "") });
    if (label) append(node, el("span", { className: "muted", text: label }));
    if (value !== undefined && value !== null && value !== "") append(node, el("b", { text: String(value) }));
    return node;
  }

  // Localise <time data-local-time> elements rendered by the server.
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("time[data-local-time]"), function (node) {
      node.textContent = formatTime(node.getAttribute("datetime"));
    });
  });

  // What the server puts in every page as JSON (templates/base.html).
  var pageData = {};
  function fromPage(id, fallback) {
    if (!Object.prototype.hasOwnProperty.call(pageData, id)) {
      var node = document.getElementById(id);
      try { pageData[id] = node ? JSON.parse(node.textContent) : fallback; } catch (e) { pageData[id] = fallback; }
    }
    return pageData[id];
  }
  // The document stores, as the server registers them (knowledge/retrieval/stores.py).
  function stores() { return fromPage("adrag-stores", []); }
  // The stage ids and event types of the wire contract (queries/pipeline/stages.py).
  function pipeline() { return fromPage("adrag-pipeline", { stages: [], event_types: [] }); }

  window.Adrag = {
    csrfToken: csrfToken, el: el, append: append, clear: clear, safeHref: safeHref, isSafeUrl: isSafeUrl,
    api: api, ApiError: ApiError, chip: chip,
    formatDuration: formatDuration, formatBytes: formatBytes, formatTime: formatTime, formatNumber: formatNumber, plural: plural, modelLabel: modelLabel,
    loadDefault: loadDefault, saveDefault: saveDefault, stores: stores, pipeline: pipeline
  };
})();
