// The knowledge-base manager: create, rename, share, delete; upload several files and watch each
// one index through a progress bar fed by polling GET /api/documents/<id>.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var root = document.getElementById("knowledge");
  if (!root) return;

  var ACTIVE = ["queued", "extracting", "chunking", "embedding", "indexing"];
  var POLL_MS = 300;
  var username = root.dataset.username;
  var isStaff = root.dataset.staff === "1";

  var $ = function (id) { return document.getElementById(id); };
  var list = $("kb-list");
  var detail = $("kb-detail");
  var empty = $("kb-empty");
  var docRows = $("doc-rows");
  var uploadList = $("upload-list");
  var fileInput = $("file-input");

  var kbs = [];
  var selected = null;
  var watched = {};   // document id -> true while its ingestion is followed
  var pollTimer = null;
  var refreshTimer = null;

  var plural = A.plural;

  function isActive(doc) { return ACTIVE.indexOf(doc.status) !== -1; }

  // One bar across the whole ingestion: the stages before and after embedding are short, so
  // embedding (the per-batch counter) spans most of it.
  function progressValue(doc) {
    var percent = doc.progress && typeof doc.progress.percent === "number" ? doc.progress.percent : 0;
    switch (doc.status) {
      case "queued": return 2;
      case "extracting": return 5;
      case "chunking": return 10;
      case "embedding": return 10 + Math.round(percent * 0.8);
      case "indexing": return 92;
      case "ready": return 100;
      default: return percent;
    }
  }

  function progressText(doc) {
    var p = doc.progress || {};
    switch (doc.status) {
      case "queued": return "queued: waiting for a worker";
      case "extracting": return p.total ? "reading page " + (p.done + 1) + " of " + p.total + " with OCR (" + Math.round(p.percent || 0) + "%)" : "extracting text…";
      case "chunking": return "splitting into chunks…";
      case "embedding": return "embedding " + (p.done || 0) + " of " + (p.total ? plural(p.total, "chunk") : "? chunks") + " (" + Math.round(p.percent || 0) + "%)";
      case "indexing": return "writing the vector, BM25 and graph indexes…";
      case "ready": return "ready · " + plural(doc.chunk_count, "chunk") + " · " + plural(doc.entity_count, "entity", "entities") + " · " + plural(doc.edge_count, "edge");
      case "failed": return "failed: " + (doc.error || "unknown error") + (doc.error_code ? " (" + doc.error_code + ")" : "");
      case "cancelled": return "cancelled";
    }
    return doc.status;
  }

  // [1, 2, 3, 7] -> "pages 1–3, 7"
  function pageList(pages) {
    var runs = [];
    pages.forEach(function (page) {
      var last = runs[runs.length - 1];
      if (last && page === last[1] + 1) last[1] = page; else runs.push([page, page]);
    });
    var text = runs.map(function (run) { return run[0] === run[1] ? String(run[0]) : run[0] + "\u2013" + run[1]; }).join(", ");
    return (pages.length === 1 ? "page " : "pages ") + text;
  }

  function showError(target, err) {
    target.textContent = err ? String(err.message || err) : "";
    target.hidden = !err;
  }

  // ---- knowledge bases ----

  function loadKbs(selectId) {
    return A.api("/api/knowledge-bases").then(function (body) {
      kbs = body.knowledge_bases || [];
      $("kb-count").textContent = String(kbs.length);
      var wanted = selectId || (selected && selected.id) || parseInt(new URL(window.location.href).searchParams.get("kb"), 10);
      var next = kbs.filter(function (kb) { return kb.id === wanted; })[0] || kbs[0] || null;
      renderList(next);
      select(next);
    }).catch(function (err) {
      A.clear(list);
      A.append(list, el("li", { className: "error", text: "Could not load knowledge bases: " + err.message }));
    });
  }

  function renderList(active) {
    A.clear(list);
    if (!kbs.length) {
      A.append(list, el("li", { className: "muted", text: "None yet. Create your first one below." }));
      return;
    }
    kbs.forEach(function (kb) {
      var meta = plural(kb.document_count, "document") + " · " + plural(kb.chunk_count, "chunk");
      if (kb.owner !== username) meta += " · owner " + kb.owner;
      A.append(list, el("li", null, el("button", {
        type: "button", className: "kb-item", dataset: { kbId: kb.id },
        "aria-current": active && active.id === kb.id ? "true" : "false",
        onclick: function () { select(kb); renderList(kb); }
      }, [
        el("span", { className: "kb-name", text: String(kb.name) }),
        el("span", { className: "kb-meta", text: meta }),
        kb.team ? el("span", { className: "kb-meta" }, el("span", { className: "badge team", text: "team " + kb.team.name })) : null
      ])));
    });
  }

  function canManage(kb) { return isStaff || kb.owner === username; }

  function select(kb) {
    selected = kb;
    var url = new URL(window.location.href);
    if (kb) url.searchParams.set("kb", kb.id); else url.searchParams.delete("kb");
    window.history.replaceState(null, "", url.toString());
    empty.hidden = !!kb;
    detail.hidden = !kb;
    if (!kb) return;
    $("kb-title").textContent = kb.name;
    $("kb-subtitle").textContent = (kb.description ? kb.description + " · " : "") + "owner " + kb.owner + " · created " + A.formatTime(kb.created_at);
    var badge = $("kb-team-badge");
    badge.hidden = !kb.team;
    badge.textContent = kb.team ? "shared with " + kb.team.name : "";
    $("kb-settings").hidden = !canManage(kb);
    $("kb-edit-name").value = kb.name;
    $("kb-edit-description").value = kb.description || "";
    var teamSelect = $("kb-edit-team");
    if (kb.team && !teamSelect.querySelector('option[value="' + kb.team.id + '"]')) {
      teamSelect.appendChild(el("option", { value: kb.team.id, text: kb.team.name }));
    }
    teamSelect.value = kb.team ? String(kb.team.id) : "";
    showError($("kb-edit-error"), null);
    loadStats();
    loadDocs();
  }

  function loadStats() {
    if (!selected) return;
    var kbId = selected.id;
    A.api("/api/knowledge-bases/" + kbId + "/stats").then(function (stats) {
      if (!selected || selected.id !== kbId) return;
      var target = $("kb-stats");
      A.clear(target);
      A.append(target, [
        A.chip("documents", A.formatNumber(stats.documents)),
        A.chip("chunks", A.formatNumber(stats.chunks)),
        A.chip("tokens", A.formatNumber(stats.tokens)),
        A.chip("entities", A.formatNumber(stats.entities)),
        A.chip("edges", A.formatNumber(stats.edges)),
        A.chip("size", A.formatBytes(stats.bytes))
      ]);
    }).catch(function () { /* stats are a convenience; the document list says the same */ });
  }

  $("kb-create-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var button = $("kb-create-button");
    var errorBox = $("kb-create-error");
    var name = $("kb-create-name").value.trim();
    if (!name) { showError(errorBox, "Give the knowledge base a name."); return; }
    button.disabled = true;
    var team = $("kb-create-team").value;
    A.api("/api/knowledge-bases", { method: "POST", body: { name: name, description: $("kb-create-description").value, team: team || null } })
      .then(function (kb) {
        showError(errorBox, null);
        event.target.reset();
        return loadKbs(kb.id);
      })
      .catch(function (err) { showError(errorBox, err); })
      .then(function () { button.disabled = false; });
  });

  $("kb-edit-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (!selected) return;
    var errorBox = $("kb-edit-error");
    var body = { name: $("kb-edit-name").value.trim(), description: $("kb-edit-description").value, team: $("kb-edit-team").value };
    A.api("/api/knowledge-bases/" + selected.id, { method: "PATCH", body: body })
      .then(function (kb) { showError(errorBox, null); $("kb-settings").open = false; return loadKbs(kb.id); })
      .catch(function (err) { showError(errorBox, err); });
  });

  $("kb-delete-button").addEventListener("click", function () {
    if (!selected) return;
    if (!window.confirm("Delete the knowledge base \u201c" + selected.name + "\u201d with all its documents? This cannot be undone.")) return;
    var id = selected.id;
    A.api("/api/knowledge-bases/" + id, { method: "DELETE" })
      .then(function () { selected = null; return loadKbs(); })
      .catch(function (err) { showError($("kb-edit-error"), err); });
  });

  // ---- documents ----

  function loadDocs() {
    if (!selected) return;
    var kbId = selected.id;
    A.api("/api/knowledge-bases/" + kbId + "/documents").then(function (body) {
      if (!selected || selected.id !== kbId) return;
      var docs = body.documents || [];
      A.clear(docRows);
      $("doc-empty").hidden = docs.length > 0;
      docs.forEach(function (doc) {
        docRows.appendChild(docRow(doc));
        if (isActive(doc)) watch(doc.id);
      });
    }).catch(function (err) {
      A.clear(docRows);
      A.append(docRows, el("tr", null, el("td", { colspan: 7, className: "error", text: "Could not load documents: " + err.message })));
    });
  }

  function docRow(doc) {
    var statusCell = el("td", null, el("span", { className: "badge " + doc.status, text: doc.status }));
    if (isActive(doc)) {
      A.append(statusCell, el("div", { className: "progress-cell" }, [
        el("progress", { max: 100, value: progressValue(doc), "aria-label": "Indexing " + doc.file_name }),
        el("span", { className: "muted small", text: progressText(doc) })
      ]));
    }
    var nameCell = el("td", null, [
      el("div", { className: "doc-name", text: String(doc.file_name) }),
      el("div", { className: "muted small", text: [doc.file_type, doc.page_count ? plural(doc.page_count, "page") : "", doc.encoding].filter(Boolean).join(" · ") })
    ]);
    if (doc.ocr_pages && doc.ocr_pages.length) A.append(nameCell, el("div", { className: "muted small doc-ocr", text: pageList(doc.ocr_pages) + " read by OCR" }));
    (doc.unreadable_pages || []).forEach(function (page) {
      A.append(nameCell, el("div", { className: "doc-warning small", text: (page.page ? "Page " + page.page : "The image") + " could not be read: " + page.message }));
    });
    if (doc.error) A.append(nameCell, el("div", { className: "doc-error", text: (doc.error_code ? doc.error_code + ": " : "") + doc.error }));
    var actions = el("div", { className: "row-actions" });
    if (isActive(doc)) {
      A.append(actions, el("button", { type: "button", className: "small", text: "Cancel", "aria-label": "Cancel indexing " + doc.file_name, onclick: function () { docAction(doc, "cancel"); } }));
    } else {
      A.append(actions, el("button", { type: "button", className: "small", text: "Re-index", "aria-label": "Re-index " + doc.file_name, onclick: function () { docAction(doc, "reindex"); } }));
    }
    A.append(actions, el("button", { type: "button", className: "small danger", text: "Delete", "aria-label": "Delete " + doc.file_name, onclick: function () { deleteDoc(doc); } }));
    return el("tr", { dataset: { documentId: doc.id, status: doc.status } }, [
      nameCell, statusCell,
      el("td", { className: "num", text: A.formatNumber(doc.chunk_count) }),
      el("td", { className: "num", text: A.formatNumber(doc.entity_count) }),
      el("td", { className: "num", text: A.formatNumber(doc.edge_count) }),
      el("td", { className: "num", text: A.formatBytes(doc.size) }),
      el("td", null, actions)
    ]);
  }

  function replaceDocRow(doc) {
    var existing = docRows.querySelector('tr[data-document-id="' + doc.id + '"]');
    if (existing) existing.replaceWith(docRow(doc));
    else if (selected && doc.knowledge_base === selected.id) { docRows.insertBefore(docRow(doc), docRows.firstChild); $("doc-empty").hidden = true; }
  }

  function docAction(doc, action) {
    A.api("/api/documents/" + doc.id + "/" + action, { method: "POST" })
      .then(function (updated) { replaceDocRow(updated); if (isActive(updated)) { uploadRow(updated); watch(updated.id); } })
      .catch(function (err) { $("upload-status").textContent = err.message; });
  }

  function deleteDoc(doc) {
    if (!window.confirm("Delete \u201c" + doc.file_name + "\u201d from this knowledge base?")) return;
    A.api("/api/documents/" + doc.id, { method: "DELETE" })
      .then(function () { delete watched[doc.id]; refreshSoon(); loadDocs(); })
      .catch(function (err) { $("upload-status").textContent = err.message; });
  }

  $("kb-clear-button").addEventListener("click", function () {
    if (!selected) return;
    if (!window.confirm("Delete every document of \u201c" + selected.name + "\u201d? The knowledge base stays.")) return;
    var kbId = selected.id;
    var button = $("kb-clear-button");
    button.disabled = true;
    A.api("/api/knowledge-bases/" + kbId + "/documents").then(function (body) {
      // One at a time: each delete updates the KB's statistics under a lock.
      return (body.documents || []).reduce(function (chain, doc) {
        return chain.then(function () { return A.api("/api/documents/" + doc.id, { method: "DELETE" }); });
      }, Promise.resolve());
    }).catch(function (err) { $("upload-status").textContent = err.message; })
      .then(function () { button.disabled = false; loadKbs(kbId); });
  });

  $("clear-all-button").addEventListener("click", function () {
    if (!window.confirm("Delete every document of every knowledge base you own?")) return;
    A.api("/api/clear", { method: "DELETE" })
      .then(function (body) { $("clear-all-status").textContent = body.message || "Cleared."; return loadKbs(); })
      .catch(function (err) { $("clear-all-status").textContent = err.message; });
  });

  // ---- uploads ----

  function uploadRow(doc) {
    var row = uploadList.querySelector('li[data-document-id="' + doc.id + '"]');
    if (!row) {
      row = el("li", { className: "upload-item", dataset: { documentId: doc.id } }, [
        el("span", { className: "upload-name", text: String(doc.file_name) }),
        el("span", { className: "badge", dataset: { role: "badge" } }),
        el("progress", { max: 100, value: 0, "aria-label": "Progress of " + doc.file_name }),
        el("span", { className: "upload-state", dataset: { role: "state" } })
      ]);
      uploadList.insertBefore(row, uploadList.firstChild);
    }
    row.dataset.status = doc.status;
    row.classList.toggle("failed", doc.status === "failed" || doc.status === "cancelled");
    var badge = row.querySelector("[data-role=badge]");
    badge.className = "badge " + doc.status;
    badge.textContent = doc.status;
    var bar = row.querySelector("progress");
    var value = progressValue(doc);
    bar.value = value;
    bar.dataset.percent = String(value);
    row.querySelector("[data-role=state]").textContent = progressText(doc);
    return row;
  }

  function rejectedRow(item) {
    uploadList.insertBefore(el("li", { className: "upload-item failed", dataset: { status: "rejected" } }, [
      el("span", { className: "upload-name", text: String(item.file_name) }),
      el("span", { className: "badge failed", text: "rejected" }),
      el("span", { className: "upload-state", text: String(item.error) + (item.code ? " (" + item.code + ")" : "") })
    ]), uploadList.firstChild);
  }

  function watch(id) {
    watched[id] = true;
    if (!pollTimer) pollTimer = setTimeout(poll, POLL_MS);
  }

  function poll() {
    pollTimer = null;
    var ids = Object.keys(watched);
    if (!ids.length) return;
    Promise.all(ids.map(function (id) {
      return A.api("/api/documents/" + id).then(function (doc) {
        if (uploadList.querySelector('li[data-document-id="' + doc.id + '"]')) uploadRow(doc);
        replaceDocRow(doc);
        if (!isActive(doc)) { delete watched[id]; refreshSoon(); }
      }).catch(function (err) {
        if (err.status === 404) delete watched[id];
      });
    })).then(function () {
      if (Object.keys(watched).length && !pollTimer) pollTimer = setTimeout(poll, POLL_MS);
    });
  }

  function refreshSoon() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(function () {
      if (!selected) return;
      var kbId = selected.id;
      A.api("/api/knowledge-bases").then(function (body) {
        kbs = body.knowledge_bases || [];
        var current = kbs.filter(function (kb) { return kb.id === kbId; })[0];
        if (current && selected && selected.id === kbId) { selected = current; renderList(current); }
        loadStats();
      }).catch(function () {});
    }, 300);
  }

  $("upload-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (!selected) return;
    var files = Array.prototype.slice.call(fileInput.files || []);
    var statusLine = $("upload-status");
    if (!files.length) { statusLine.textContent = "Choose one or more files first."; return; }
    var data = new FormData();
    files.forEach(function (file) { data.append("file", file, file.name); });
    var button = $("upload-button");
    button.disabled = true;
    var sending = el("li", { className: "upload-item", dataset: { status: "uploading" } }, [
      el("span", { className: "upload-name", text: files.length === 1 ? files[0].name : plural(files.length, "file") }),
      el("span", { className: "badge running", text: "uploading" }),
      el("progress", { max: 100, value: 0, "aria-label": "Upload progress" }),
      el("span", { className: "upload-state", text: "sending…" })
    ]);
    uploadList.insertBefore(sending, uploadList.firstChild);
    var kbId = selected.id;
    // XMLHttpRequest, not fetch: it reports upload progress for large files.
    var xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/knowledge-bases/" + kbId + "/documents");
    xhr.setRequestHeader("X-CSRFToken", A.csrfToken());
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      var percent = Math.round(100 * e.loaded / e.total);
      sending.querySelector("progress").value = percent;
      sending.querySelector(".upload-state").textContent = "sending " + percent + "% of " + A.formatBytes(e.total);
    });
    xhr.addEventListener("load", function () {
      sending.remove();
      button.disabled = false;
      var body = {};
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = { error: "The server answered " + xhr.status + "." }; }
      (body.rejected || []).forEach(rejectedRow);
      if (xhr.status >= 400 && !(body.rejected && body.rejected.length)) {
        rejectedRow({ file_name: files.length === 1 ? files[0].name : plural(files.length, "file"), error: body.error || "Upload failed", code: body.code });
      }
      var accepted = body.documents || [];
      accepted.forEach(function (doc) { uploadRow(doc); replaceDocRow(doc); watch(doc.id); });
      statusLine.textContent = accepted.length ? accepted.length + " file(s) queued for indexing." : "";
      fileInput.value = "";
      refreshSoon();
    });
    xhr.addEventListener("error", function () {
      sending.remove();
      button.disabled = false;
      rejectedRow({ file_name: files.length + " file(s)", error: "The upload could not reach the server.", code: "network" });
    });
    xhr.send(data);
  });

  var dropzone = $("dropzone");
  ["dragenter", "dragover"].forEach(function (type) {
    dropzone.addEventListener(type, function (event) { event.preventDefault(); dropzone.classList.add("over"); });
  });
  ["dragleave", "drop"].forEach(function (type) {
    dropzone.addEventListener(type, function () { dropzone.classList.remove("over"); });
  });
  dropzone.addEventListener("drop", function (event) {
    event.preventDefault();
    if (event.dataTransfer && event.dataTransfer.files.length) {
      fileInput.files = event.dataTransfer.files;
      $("upload-status").textContent = event.dataTransfer.files.length + " file(s) ready to upload.";
    }
  });

  loadKbs();
})();
