// The chat page's pickers: the provider and its model (GET /api/providers; the last choice is
// kept by common.js's saveDefault/loadDefault), and the knowledge bases to search
// (GET /api/knowledge-bases). chat.js reads the choices through Adrag.chatPickers.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var providerSelect = document.getElementById("provider");
  var modelSelect = document.getElementById("model");
  var kbOptions = document.getElementById("kb-options");
  if (!providerSelect || !modelSelect || !kbOptions) return;

  var providers = null;
  var kbsLoaded = false;
  var status = function () {};

  function selectedKbs() {
    if (!kbsLoaded) return null;
    return Array.prototype.map.call(kbOptions.querySelectorAll("input[name=kb]:checked"), function (input) {
      return parseInt(input.value, 10);
    });
  }

  function loadKbs() {
    A.api("/api/knowledge-bases").then(function (body) {
      A.clear(kbOptions);
      var kbs = body.knowledge_bases || [];
      kbsLoaded = true;
      if (!kbs.length) {
        A.append(kbOptions, el("span", { className: "muted" }, ["No knowledge bases yet. ", el("a", { href: "/knowledge/", text: "Create one and upload documents" }), "; until then answers come without your documents."]));
        return;
      }
      kbs.forEach(function (kb) {
        var id = "kb-" + kb.id;
        var meta = kb.document_count + (kb.document_count === 1 ? " doc" : " docs") + (kb.team ? " · " + kb.team.name : "");
        A.append(kbOptions, el("label", { className: "kb-option", for: id }, [
          el("input", { type: "checkbox", name: "kb", id: id, value: kb.id, checked: true }),
          String(kb.name),
          el("span", { className: "muted", text: "(" + meta + ")" })
        ]));
      });
    }).catch(function (err) {
      A.clear(kbOptions);
      A.append(kbOptions, el("span", { className: "error", text: "Knowledge bases could not be loaded (" + err.message + "); all of yours will be searched." }));
    });
  }

  function fillModels(name, preferred) {
    A.clear(modelSelect);
    var provider = providers && providers.providers[name];
    if (!provider) {
      modelSelect.appendChild(el("option", { value: "", text: "Provider default" }));
      return;
    }
    var models = (provider.models || []).slice();
    if (preferred && models.indexOf(preferred) === -1) models.push(preferred);
    models.forEach(function (model) {
      modelSelect.appendChild(el("option", { value: model, title: model, text: A.modelLabel(model, provider.default_model) }));
    });
    modelSelect.value = preferred && models.indexOf(preferred) !== -1 ? preferred : provider.default_model || models[0] || "";
  }

  function loadProviders() {
    return A.api("/api/providers").then(function (body) {
      providers = body;
      A.clear(providerSelect);
      var names = Object.keys(body.providers || {});
      names.forEach(function (name) {
        var provider = body.providers[name];
        providerSelect.appendChild(el("option", {
          value: name, disabled: !provider.available,
          text: String(provider.label || name) + (provider.available ? "" : " (unavailable)")
        }));
      });
      var saved = A.loadDefault();
      var choice = saved && body.providers[saved.provider] && body.providers[saved.provider].available ? saved.provider : body.default_provider;
      if (!body.providers[choice] || !body.providers[choice].available) {
        choice = names.filter(function (n) { return body.providers[n].available; })[0] || choice;
      }
      providerSelect.value = choice;
      fillModels(choice, saved && saved.provider === choice ? saved.model : "");
    }).catch(function (err) {
      A.clear(providerSelect);
      providerSelect.appendChild(el("option", { value: "", text: "Server default" }));
      fillModels("", "");
      status("Providers could not be listed (" + err.message + "); the server default will answer.");
    });
  }

  providerSelect.addEventListener("change", function () { fillModels(providerSelect.value, ""); });
  document.getElementById("kb-all").addEventListener("click", function () {
    Array.prototype.forEach.call(kbOptions.querySelectorAll("input[name=kb]"), function (input) { input.checked = true; });
  });
  document.getElementById("kb-none").addEventListener("click", function () {
    Array.prototype.forEach.call(kbOptions.querySelectorAll("input[name=kb]"), function (input) { input.checked = false; });
  });

  A.chatPickers = {
    provider: function () { return providerSelect.value; },
    model: function () { return modelSelect.value; },
    selectedKbs: selectedKbs,
    // Load both pickers; `report` shows a problem to the user. Resolves once the providers are in.
    load: function (report) {
      status = report || status;
      loadKbs();
      return loadProviders();
    }
  };
})();
