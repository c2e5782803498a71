// The Playground's only script: no build step, no dependencies. It reads the JSON API
// with fetch and writes every value with textContent, never as HTML: what users, models
// and Kafka wrote is data.
"use strict";
const Playground = (() => {
  const STAGES = ["summarize", "extract", "resolve", "dedup", "judge", "write"];

  function el(name, text, attrs) {
    const node = document.createElement(name);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  }

  function svg(name, attrs) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  }

  function shownTime(iso) {
    return iso ? new Date(iso).toISOString().replace("T", " ").slice(0, 19) : "";
  }

  function tenantPath(e) {
    return "/tenants/" + encodeURIComponent(e.dataset) + "/" + encodeURIComponent(e.project_id);
  }

  // As streams/api/html.py episode_path: a dot-segment id goes in the query.
  function episodePath(e) {
    const id = encodeURIComponent(e.episode_id);
    if (e.episode_id === "." || e.episode_id === "..") {
      return tenantPath(e) + "/episode?id=" + id;
    }
    return tenantPath(e) + "/episodes/" + id;
  }

  function episodeRow(e) {
    const tr = el("tr", null, {"data-key": e.dataset + ":" + e.project_id + ":" + e.episode_id});
    const cell = (child) => { const td = el("td"); td.append(child); tr.append(td); };
    cell(el("a", e.dataset + ":" + e.project_id, {href: tenantPath(e)}));
    cell(el("a", e.episode_id, {
      href: episodePath(e),
      class: "episode-link",
    }));
    cell(document.createTextNode(shownTime(e.completed_at)));
    for (const stage of STAGES) {
      const status = (e.stages || {})[stage] || "";
      cell(el("span", status, {class: "status s-" + status.replace(/ /g, "-")}));
    }
    cell(document.createTextNode(String(e.facts_added)));
    cell(document.createTextNode(String(e.drops)));
    cell(document.createTextNode(shownTime(e.updated_at)));
    return tr;
  }

  function episodesFeed() {
    const table = document.getElementById("episodes");
    const body = table.querySelector("tbody");
    let after = table.dataset.changedAfter || "";
    async function poll() {
      const q = new URLSearchParams({limit: "200"});
      if (after) q.set("changed_after", after);
      const base = table.dataset.dataset
        ? "/api/tenants/" + encodeURIComponent(table.dataset.dataset) + "/"
          + encodeURIComponent(table.dataset.project) + "/episodes"
        : "/api/episodes";
      try {
        const answer = await fetch(base + "?" + q, {credentials: "same-origin"});
        if (!answer.ok) return;
        const episodes = (await answer.json()).episodes;
        for (const e of episodes.slice().reverse()) {  // oldest first: the newest ends on top
          const row = episodeRow(e);
          const old = [...body.rows].find((r) => r.dataset.key === row.dataset.key);
          if (old) old.remove();
          body.prepend(row);
          row.classList.add("fresh");
          if (!after || e.updated_at > after) after = e.updated_at;
        }
      } catch (err) {
        console.warn("episodes poll failed", err);
      }
    }
    setInterval(poll, 1500);
  }

  function drawLag(box, data) {
    const chart = box.querySelector("svg");
    chart.replaceChildren();
    const w = Number(chart.getAttribute("width")), h = Number(chart.getAttribute("height"));
    const left = 50, right = 120, top = 10, bottom = 30;
    const samples = data.samples;
    const now = Date.now() / 1000, from = now - data.window_s;
    let most = 1;
    for (const s of samples) for (const v of Object.values(s.lag)) if (v !== null) most = Math.max(most, v);
    const x = (t) => left + (t - from) / data.window_s * (w - left - right);
    const y = (v) => top + (1 - v / most) * (h - top - bottom);
    chart.append(svg("line", {x1: left, x2: w - right, y1: y(0), y2: y(0), class: "axis"}));
    chart.append(svg("line", {x1: left, x2: left, y1: top, y2: y(0), class: "axis"}));
    const maxLabel = svg("text", {x: 4, y: top + 10, class: "tick-label"});
    maxLabel.textContent = String(most);
    const zero = svg("text", {x: 4, y: y(0), class: "tick-label"});
    zero.textContent = "0";
    const past = svg("text", {x: left, y: h - 8, class: "tick-label"});
    past.textContent = "-" + Math.round(data.window_s / 60) + " min";
    const present = svg("text", {x: w - right - 24, y: h - 8, class: "tick-label"});
    present.textContent = "now";
    chart.append(maxLabel, zero, past, present);
    data.stages.forEach((stage, i) => {
      const points = samples.filter((s) => s.lag[stage] !== null && s.at >= from)
        .map((s) => x(s.at).toFixed(1) + "," + y(s.lag[stage]).toFixed(1));
      const line = svg("polyline", {points: points.join(" "), class: "lag-line c" + i,
                                    "data-stage": stage});
      const label = svg("text", {x: w - right + 8, y: top + 14 + i * 18, class: "legend c" + i});
      const last = samples.length ? samples[samples.length - 1].lag[stage] : null;
      label.textContent = stage + " " + (last === null ? "?" : last);
      chart.append(line, label);
    });
  }

  function lagChart() {
    const box = document.getElementById("lag-chart-box");
    async function refresh() {
      try {
        const answer = await fetch("/api/pipeline/lag", {credentials: "same-origin"});
        if (answer.ok) drawLag(box, await answer.json());
      } catch (err) {
        console.warn("lag refresh failed", err);
      }
    }
    refresh();
    setInterval(refresh, 1000 * Number(box.dataset.intervalS || 5));
  }

  function redrive() {
    const button = document.getElementById("redrive");
    const result = document.getElementById("redrive-result");
    button.addEventListener("click", async () => {
      const what = button.dataset.confirm;
      if (!window.confirm("Redrive dead letter " + what + " to its original topic?")) {
        result.textContent = "cancelled: nothing was sent";
        return;
      }
      button.disabled = true;
      const answer = await fetch(button.dataset.url, {
        method: "POST",
        credentials: "same-origin",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({confirm: what}),
      });
      const body = await answer.json();
      result.textContent = (answer.ok ? "" : "failed: ") + JSON.stringify(body, null, 2);
    });
  }

  return {episodesFeed, lagChart, redrive};
})();
