// The chat's metadata filters: documents (of the checked knowledge bases), file types and an
// upload-date range, sent as POST /api/query's `filters`; a chip in the summary shows what is on.
// chat.js asks `Adrag.chatFilters()` for the object when it builds the request body.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var root = document.getElementById("filters");
  if (!root) return;

  // The document kinds every portal user uploads; types found in the documents are added.
  var COMMON_TYPES = ["pdf", "docx", "xlsx", "pptx", "md", "html", "csv", "txt", "png", "jpg"];
  var SAME_KIND = { markdown: "md", htm: "html" };
  var kbOptions = document.getElementById("kb-options");
  var documentSelect = document.getElementById("filter-documents");
  var typeOptions = document.getElementById("filter-type-options");
  var afterInput = document.getElementById("filter-after");
  var beforeInput = document.getElementById("filter-before");
  var chip = document.getElementById("filters-chip");
  var documentsByKb = {};
  var loading = null;

  function checkedKbs() {
    return Array.prototype.map.call(kbOptions.querySelectorAll("input[name=kb]:checked"), function (input) {
      return { id: parseInt(input.value, 10), name: input.parentNode.childNodes[1] ? input.parentNode.childNodes[1].textContent : String(input.value) };
    });
  }

  function selectedDocuments() {
    return Array.prototype.filter.call(documentSelect.options, function (option) {
      return option.selected && option.value;
    }).map(function (option) { return parseInt(option.value, 10); });
  }

  function selectedTypes() {
    return Array.prototype.map.call(typeOptions.querySelectorAll("input[name=file_type]:checked"), function (input) {
      return input.value;
    });
  }

  function kindOf(type) {
    type = String(type || "").toLowerCase();
    return SAME_KIND[type] || type;
  }

  function renderTypes() {
    var chosen = selectedTypes();
    var types = COMMON_TYPES.slice();
    Object.keys(documentsByKb).forEach(function (kbId) {
      documentsByKb[kbId].forEach(function (doc) {
        var kind = kindOf(doc.file_type);
        if (kind && types.indexOf(kind) === -1) types.push(kind);
      });
    });
    A.clear(typeOptions);
    types.forEach(function (type) {
      var id = "filter-type-" + type;
      A.append(typeOptions, el("label", { className: "kb-option", for: id }, [
        el("input", { type: "checkbox", name: "file_type", id: id, value: type, checked: chosen.indexOf(type) !== -1 }),
        type
      ]));
    });
  }

  function renderDocuments() {
    var chosen = selectedDocuments();
    A.clear(documentSelect);
    var kbs = checkedKbs();
    var count = 0;
    kbs.forEach(function (kb) {
      var docs = documentsByKb[kb.id] || [];
      if (!docs.length) return;
      var group = el("optgroup", { label: kb.name });
      docs.forEach(function (doc) {
        count += 1;
        group.appendChild(el("option", {
          value: doc.id,
          selected: chosen.indexOf(doc.id) !== -1,
          text: doc.file_name + " · " + String(doc.created_at || "").slice(0, 10)
        }));
      });
      documentSelect.appendChild(group);
    });
    if (!count) documentSelect.appendChild(el("option", { disabled: true, value: "", text: kbs.length ? "No ready documents in the checked knowledge bases." : "Check a knowledge base above first." }));
    root.dataset.documents = String(count);
    updateChip();
  }

  function loadDocuments() {
    var wanted = checkedKbs().filter(function (kb) { return !documentsByKb[kb.id]; });
    if (!wanted.length) { renderDocuments(); renderTypes(); return Promise.resolve(); }
    root.dataset.loading = "1";
    loading = Promise.all(wanted.map(function (kb) {
      return A.api("/api/knowledge-bases/" + encodeURIComponent(kb.id) + "/documents?status=ready").then(function (body) {
        documentsByKb[kb.id] = (body && body.documents) || [];
      }).catch(function () { documentsByKb[kb.id] = []; });
    })).then(function () {
      root.dataset.loading = "0";
      renderDocuments();
      renderTypes();
    });
    return loading;
  }

  function current() {
    var filters = {};
    var documents = selectedDocuments();
    var types = selectedTypes();
    if (documents.length) filters.documents = documents;
    if (types.length) filters.file_types = types;
    if (afterInput.value) filters.uploaded_after = afterInput.value;
    if (beforeInput.value) filters.uploaded_before = beforeInput.value;
    return filters;
  }

  function describe(filters) {
    var parts = [];
    if (filters.documents) parts.push(filters.documents.length + (filters.documents.length === 1 ? " document" : " documents"));
    if (filters.file_types) parts.push(filters.file_types.join(", "));
    if (filters.uploaded_after && filters.uploaded_before) parts.push(filters.uploaded_after + " – " + filters.uploaded_before);
    else if (filters.uploaded_after) parts.push("from " + filters.uploaded_after);
    else if (filters.uploaded_before) parts.push("until " + filters.uploaded_before);
    return parts.join(" · ");
  }

  function updateChip() {
    var text = describe(current());
    chip.textContent = text;
    chip.hidden = !text;
    chip.title = text ? "Active filters: " + text : "";
    root.dataset.active = text ? "1" : "0";
  }

  function clearFilters() {
    Array.prototype.forEach.call(documentSelect.options, function (option) { option.selected = false; });
    Array.prototype.forEach.call(typeOptions.querySelectorAll("input[name=file_type]"), function (input) { input.checked = false; });
    afterInput.value = "";
    beforeInput.value = "";
    updateChip();
  }

  // The filters object for POST /api/query, or null when none is set.
  A.chatFilters = function () {
    var filters = current();
    return Object.keys(filters).length ? filters : null;
  };

  root.addEventListener("toggle", function () { if (root.open) loadDocuments(); });
  // The knowledge-base picker is chat.js's; follow its changes without touching it.
  kbOptions.addEventListener("change", function () { if (root.open) loadDocuments(); else renderDocuments(); });
  ["kb-all", "kb-none"].forEach(function (id) {
    var button = document.getElementById(id);
    if (button) button.addEventListener("click", function () { if (root.open) loadDocuments(); else renderDocuments(); });
  });
  [documentSelect, typeOptions, afterInput, beforeInput].forEach(function (input) {
    input.addEventListener("change", updateChip);
  });
  document.getElementById("filters-clear").addEventListener("click", clearFilters);
  renderTypes();
  updateChip();
})();
