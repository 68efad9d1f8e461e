// The tracker's per-stage details: the chips each stage's frame fills its row with, and the
// number and yes/no formats the run view shares. Loaded before run-view.js.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;

  function yesNo(value) { return value ? "yes" : "no"; }
  function num(value, digits) {
    var n = Number(value);
    return isNaN(n) ? String(value) : n.toFixed(digits);
  }
  // The scores say which reranker gave them: the cross-encoder only when it is the one that ran
  // (the stage's `reranker` key, providers/reranker.py); runs stored without the key say "scores".
  var RERANKER_SCORES = {
    "cross-encoder": "Cross-encoder scores",
    "embedding-cosine+lexical": "Fallback scores (embedding cosine + term match)",
    "fused-rank": "Fused-rank scores (reranker off)"
  };
  function rerankerScoresLabel(reranker) {
    var kind = reranker && reranker.kind ? String(reranker.kind) : "";
    if (!kind) return "scores";
    return Object.prototype.hasOwnProperty.call(RERANKER_SCORES, kind) ? RERANKER_SCORES[kind] : kind + " scores";
  }
  // A table program, as the table store ran it: its result, then what it did, in words.
  function programLine(program, label) {
    var line = el("div", { className: "program-line" });
    line.appendChild(A.chip(label || "program", String(program.result || "")));
    line.appendChild(el("span", { className: "program-words", text: " " + String(program.words || "") }));
    return line;
  }
  // A model's table query that did not answer: declined, refused, stopped or unfit, and why.
  function queryLine(query) {
    var line = el("div", { className: "program-line" });
    line.appendChild(A.chip("table query", String(query.outcome || "")));
    line.appendChild(el("span", { className: "program-words", text: " " + String(query.reason || "") }));
    return line;
  }
  function stageDetails(stage, data) {
    var chip = A.chip;
    switch (stage) {
      case "planner":
        return [
          data.query_type ? chip("type", data.query_type) : null,
          data.retrieve !== undefined ? chip("retrieve", yesNo(data.retrieve)) : null,
          data.use_external !== undefined ? chip("web", yesNo(data.use_external)) : null
        ];
      case "retrieval": {
        var nodes = A.stores().map(function (store) { return chip(store.name, data[store.name + "_count"]); });
        if (data.table_query) nodes.push(queryLine(data.table_query));
        if (data.program) nodes.push(programLine(data.program));
        // A program held back for the passages: the answer only if they find nothing.
        if (data.tentative_program) nodes.push(programLine(data.tentative_program, "held back"));
        return nodes;
      }
      case "external_tools":
        return data.web_count !== undefined ? [chip("web results", data.web_count)] : [String(data.message || "")];
      case "aggregator": {
        var nodes = [];
        if (data.before !== undefined) nodes.push(chip("dedup", data.before + " → " + data.after));
        if (data.sources && typeof data.sources === "object") {
          Object.keys(data.sources).forEach(function (name) { nodes.push(chip(name, data.sources[name])); });
        }
        return nodes.length ? nodes : [String(data.message || "")];
      }
      case "reranker":
        if (Array.isArray(data.scores)) {
          var scores = chip(rerankerScoresLabel(data.reranker), data.scores.length ? data.scores.map(function (s) { return num(s, 2); }).join(", ") : "none");
          if (data.reranker && data.reranker.name) scores.title = String(data.reranker.name);
          return [data.top_k !== undefined ? chip("kept", data.top_k) : null, scores];
        }
        return [String(data.message || "nothing to rerank")];
      case "compressor":
        if (data.ratio !== undefined && data.ratio !== null) {
          return [chip("compressed", A.formatNumber(data.original_chars) + " → " + A.formatNumber(data.compressed_chars) + " chars"), chip("ratio", num(data.ratio, 2))];
        }
        if (data.original_chars !== undefined && data.original_chars === data.compressed_chars) {
          return [chip("", "skipped"), el("span", { text: A.formatNumber(data.original_chars) + " chars, under the limit" })];
        }
        return [chip("", "skipped"), el("span", { text: String(data.message || "no context") })];
      case "reasoning":
        return [
          data.answered_by === "table" ? chip("computed", "from a table") : null,
          data.confidence !== undefined ? chip("confidence", num(data.confidence, 2)) : null,
          data.is_sufficient !== undefined ? chip("sufficient", yesNo(data.is_sufficient), data.is_sufficient ? "" : "warn") : null,
          Array.isArray(data.key_facts) ? chip("key facts", data.key_facts.length) : null,
          data.program ? programLine({ result: (data.answer_values || []).join(", "), words: data.program.words }) : null
        ];
      case "reflection": {
        var parts = [
          data.grounded !== undefined ? chip("grounded", yesNo(data.grounded), data.grounded ? "ok" : "err") : null,
          data.sufficient === false ? chip("sufficient", "no", "warn") : null,
          data.confidence !== undefined ? chip("confidence", num(data.confidence, 2)) : null,
          data.will_retry ? chip("", "will retry", "warn") : null
        ];
        if (Array.isArray(data.issues) && data.issues.length) {
          var list = el("ul", { className: "issues", "aria-label": "Issues found" });
          data.issues.forEach(function (issue) { list.appendChild(el("li", { text: typeof issue === "string" ? issue : JSON.stringify(issue) })); });
          parts.push(list);
        } else if (data.grounded !== undefined) {
          parts.push(chip("issues", "none"));
        }
        return parts;
      }
    }
    return [String(data.message || "")];
  }

  A.runFormat = { yesNo: yesNo, num: num };
  A.stageDetails = stageDetails;
})();
