// deepsim studio: the page. Plain script, no other host: it polls the studio's JSON.
"use strict";
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
const fmt = (x, d = 1) => (x === null || x === undefined) ? "–" : Number(x).toFixed(d);
let current = null;       // the chosen scenario's name
let params = [];          // its parameters
const changes = {};       // path -> text the designer typed
let selected = null;      // the history entry shown

async function api(path, opts) {
  const r = await fetch(path, Object.assign({credentials: "same-origin"}, opts || {}));
  const text = await r.text();
  let data;
  try { data = JSON.parse(text); } catch (e) { data = {text}; }
  if (!r.ok) throw new Error(data.error || data.text || r.statusText);
  return data;
}

async function loadScenarios() {
  const d = await api("/api/scenarios");
  $("folder").textContent = d.folder;
  const sel = $("scenario");
  sel.innerHTML = "";
  const bad = [];
  for (const s of d.scenarios) {
    if (s.error) { bad.push(s); continue; }
    const o = document.createElement("option");
    o.value = s.name; o.textContent = `${s.name} (${s.ruleset})`;
    sel.appendChild(o);
  }
  $("bad-scenarios").innerHTML = bad.map((s) =>
    `<li class="error"><b>${esc(s.name)}</b> does not load: ${esc(s.error)}</li>`).join("");
  if (d.default) sel.value = d.default;
  await pickScenario(sel.value);
}

async function pickScenario(name) {
  current = name;
  for (const k of Object.keys(changes)) delete changes[k];
  const d = await api("/api/scenario?name=" + encodeURIComponent(name));
  const s = d.scenario;
  $("scenario-info").innerHTML = `<p><b>${esc(s.title)}</b>: ruleset ${esc(s.ruleset)}, ` +
    `players ${esc(s.players)}<br>Field of bots: ${esc(s.bots || "the ruleset's default")}</p>`;
  params = d.parameters;
  renderParams();
  renderChanges();
  await refreshHistory();
}

function renderParams() {
  const q = $("search").value.trim().toLowerCase();
  const groups = {};
  for (const p of params) {
    if (q && !(p.path.toLowerCase().includes(q) || p.section.toLowerCase().includes(q))) continue;
    (groups[p.group] = groups[p.group] || []).push(p);
  }
  const out = [];
  for (const [g, rows] of Object.entries(groups)) {
    out.push(`<details${q ? " open" : ""}><summary>${esc(g)} (${rows.length})</summary>`);
    for (const p of rows) {
      const dflt = typeof p.default === "object" ? JSON.stringify(p.default) : p.default;
      out.push(`<div class="row"><span title="${esc(p.section)}">${esc(p.path)}` +
        (p.placeholder ? ' <span class="placeholder">placeholder</span>' : "") + `</span>` +
        `<input data-path="${esc(p.path)}" value="${esc(changes[p.path] ?? "")}" ` +
        `placeholder="${esc(dflt)}">` +
        `<span class="note">${esc(p.type)}${p.bounds ? ", " + esc(p.bounds) : ""}` +
        `${p.section ? " · " + esc(p.section) : ""}</span></div>`);
    }
    out.push("</details>");
  }
  $("params").innerHTML = out.join("") || "<p>No parameter matches.</p>";
  for (const inp of $("params").querySelectorAll("input[data-path]")) {
    inp.addEventListener("input", () => {
      const v = inp.value.trim();
      if (v === "") delete changes[inp.dataset.path]; else changes[inp.dataset.path] = v;
      renderChanges();
    });
  }
}

function renderChanges() {
  const keys = Object.keys(changes);
  $("changes").innerHTML = keys.length ? "<ul>" + keys.map((k) =>
    `<li><code>${esc(k)}=${esc(changes[k])}</code></li>`).join("") + "</ul>"
    : '<p class="hint">No number changed yet.</p>';
}

async function submit(body) {
  $("variant-error").textContent = "";
  try {
    await api("/api/runs", {method: "POST", headers: {"content-type": "application/json"},
                            body: JSON.stringify(body)});
  } catch (e) {
    $("variant-error").textContent = e.message;
  }
  pollQueue();
}

$("run").addEventListener("click", () => submit({scenario: current,
  games: parseInt($("games").value, 10)}));
$("run-variant").addEventListener("click", () => {
  const base = $("baseline").value;
  if (!base) { $("variant-error").textContent = "Run a baseline first."; return; }
  submit({scenario: current, games: 0 + parseInt($("games").value, 10), baseline: base,
          values: Object.assign({}, changes)});
});
$("scenario").addEventListener("change", (e) => pickScenario(e.target.value));
$("search").addEventListener("input", renderParams);

let polling = null;
async function pollQueue() {
  const d = await api("/api/runs");
  const active = d.runs.filter((j) => ["queued", "running", "compiling"].includes(j.state));
  const recent = d.runs.slice(0, 4);
  $("queue").innerHTML = recent.map((j) => {
    const what = j.baseline ? `variant ${esc(j.sets.join(", "))}` : "baseline";
    let line = `<div class="job" data-state="${j.state}">${esc(j.scenario)} · ${what} · `;
    if (j.state === "running" || j.state === "queued")
      line += `<progress max="${j.total}" value="${j.done}"></progress> ${j.done}/${j.total}` +
        ` <button data-cancel="${j.id}">Cancel</button>`;
    else if (j.state === "compiling")
      line += `compiling the kernels: ${esc(j.message)} <button data-cancel="${j.id}">Cancel</button>`;
    else if (j.state === "failed") line += `<span class="error">failed: ${esc(j.error)}</span>`;
    else line += esc(j.state);
    return line + "</div>";
  }).join("");
  for (const b of $("queue").querySelectorAll("button[data-cancel]"))
    b.addEventListener("click", () => api(`/api/runs/${b.dataset.cancel}/cancel`, {method: "POST"}));
  const finished = d.runs.find((j) => j.state === "done");
  if (finished && finished.id !== pollQueue.last) {
    pollQueue.last = finished.id;
    await refreshHistory(finished.id);
  }
  clearTimeout(polling);
  polling = setTimeout(pollQueue, active.length ? 300 : 2000);
}

async function refreshHistory(show) {
  const d = await api("/api/history");
  const mine = d.entries.filter((e) => e.scenario === current);
  $("history").innerHTML = mine.map((e) =>
    `<div class="item${e.id === (show || selected) ? " sel" : ""}" data-id="${e.id}">` +
    `${esc(e.created)} · <b>${esc(e.label)}</b> · ${e.games} games · ${fmt(e.seconds, 2)} s</div>`
  ).join("") || '<p class="hint">No run of this scenario yet.</p>';
  for (const it of $("history").querySelectorAll(".item"))
    it.addEventListener("click", () => showEntry(it.dataset.id));
  const bases = mine.filter((e) => !e.baseline);
  const keep = $("baseline").value;
  $("baseline").innerHTML = bases.map((e) =>
    `<option value="${e.id}">${esc(e.created)} ${esc(e.label)} (${e.games})</option>`).join("");
  if (bases.some((e) => e.id === keep)) $("baseline").value = keep;
  if (show) {
    const e = mine.find((x) => x.id === show);
    if (e && !e.baseline) $("baseline").value = show;
    await showEntry(show);
  }
}

function verdictClass(v) { return "v-" + String(v).replace(/ /g, "-"); }
// the HTML report's colours: red at either end, green viable, yellow inconclusive
const VERDICT_COLOUR = {"too strong": "#d33", "not viable": "#d33", "viable": "#3a3",
                        "inconclusive": "#e0b000"};

function shareChart(rows, fair) {
  // win share per faction with its interval; the dashed line is the fair share
  const w = 560, rh = 18, left = 190, h = rows.length * rh + 24;
  const hi = Math.max(...rows.map((r) => r.ci_high), fair) * 1.05;
  const x = (v) => left + (w - left - 10) * v / hi;
  let s = `<svg id="share-chart" width="${w}" height="${h}" role="img" aria-label="win share chart">`;
  rows.forEach((r, i) => {
    const y = 10 + i * rh;
    s += `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${esc(r.name)}</text>` +
      `<line x1="${x(r.ci_low)}" x2="${x(r.ci_high)}" y1="${y}" y2="${y}" stroke="#555"/>` +
      `<circle cx="${x(r.win_share)}" cy="${y}" r="5" stroke="#222" ` +
      `fill="${VERDICT_COLOUR[r.verdict] || "#999"}"><title>${esc(r.verdict)}</title></circle>`;
  });
  s += `<line x1="${x(fair)}" x2="${x(fair)}" y1="0" y2="${h - 14}" stroke="#23324a" stroke-dasharray="3 3"/>` +
    `<text x="${x(fair)}" y="${h - 2}" text-anchor="middle">fair ${fmt(fair)}%</text></svg>`;
  return s;
}

function changeChart(rows) {
  const w = 560, rh = 18, left = 190, h = rows.length * rh + 24;
  const m = Math.max(...rows.map((r) => Math.max(Math.abs(r.low), Math.abs(r.high))), 0.5) * 1.1;
  const x = (v) => left + (w - left - 10) * (v + m) / (2 * m);
  let s = `<svg id="change-chart" width="${w}" height="${h}" role="img" aria-label="paired change chart">`;
  rows.forEach((r, i) => {
    const y = 10 + i * rh;
    const col = r.low > 0 ? "#2a7a2a" : (r.high < 0 ? "#b00020" : "#777");
    s += `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${esc(r.name)}</text>` +
      `<line x1="${x(r.low)}" x2="${x(r.high)}" y1="${y}" y2="${y}" stroke="${col}" stroke-width="2"/>` +
      `<circle cx="${x(r.change)}" cy="${y}" r="4" fill="${col}"/>`;
  });
  s += `<line x1="${x(0)}" x2="${x(0)}" y1="0" y2="${h - 14}" stroke="#222"/>` +
    `<text x="${x(0)}" y="${h - 2}" text-anchor="middle">no change (pp)</text></svg>`;
  return s;
}

async function showEntry(id) {
  selected = id;
  const e = await api("/api/history/" + id);
  const s = e.summary;
  for (const it of $("history").querySelectorAll(".item"))
    it.classList.toggle("sel", it.dataset.id === id);
  const out = [`<h2>${esc(e.label)} · ${e.games.toLocaleString()} games, seed ${e.seed}` +
    ` · ${fmt(e.seconds, 2)} s</h2>`];
  if (e.placeholders.length)
    out.push(`<p class="placeholder">Placeholder data: ${esc(e.placeholders.join(", "))}</p>`);
  out.push(`<p><a href="/api/history/${id}/export?as=scenario">scenario file</a> · ` +
    `<a href="/api/history/${id}/export?as=sets">--set list</a> · ` +
    `trace of game <input id="trace-game" type="number" min="0" value="0" style="width:5em">` +
    ` <a id="trace-link" href="/api/history/${id}/trace?game=0">open</a> · ` +
    `<a href="/api/history/${id}/report/" target="_blank">full report</a> (written on first opening: it can take a minute)</p>`);
  if (e.paired) {
    const moved = e.paired.filter((r) => r.moved);
    out.push(`<h2 id="paired">Paired change against the baseline (${e.paired[0]?.games ?? 0} ` +
      `${e.paired[0]?.paired ? "paired" : "unpaired"} games)</h2>`);
    out.push(`<p>${moved.length ? `<span class="moved">${moved.length} verdict(s) moved</span>`
      : "No verdict moved."}</p>`);
    out.push(changeChart(e.paired));
    out.push("<table id='paired-table'><tr><th>" + esc(s.faction_label) + "</th><th>before %</th>" +
      "<th>after %</th><th>change pp [95% CI]</th><th>verdict</th></tr>" +
      e.paired.map((r) => `<tr><td>${esc(r.name)}</td><td class="num">${fmt(r.a)}</td>` +
        `<td class="num">${fmt(r.b)}</td><td class="num">${fmt(r.change, 2)} ` +
        `[${fmt(r.low, 2)}, ${fmt(r.high, 2)}]</td><td class="${r.moved ? "moved" : ""}">` +
        `${esc(r.verdict_before)}${r.moved ? " → " + esc(r.verdict_after) : ""}</td></tr>`
      ).join("") + "</table>");
  }
  if (s.party) {
    out.push(`<h2 id="party">The party (target ± ${fmt(s.party.band, 0)} pts)</h2>` +
      s.party.lines.map((l) => `<p>${esc(l)}</p>`).join(""));
    if (s.party.effects.length)
      out.push(`<table><tr><th>${esc(s.faction_label)}</th><th>presence effect pts [95%]</th></tr>` +
        s.party.effects.map((r) => `<tr><td>${esc(r.member)}</td><td class="num">` +
          `${fmt(100 * r.effect)} [${fmt(100 * r.low)}, ${fmt(100 * r.high)}]</td></tr>`).join("") +
        "</table><p class='hint'>Unpaired and observational: games with the class against " +
        "games without it.</p>");
  }
  out.push("<h2>Headline</h2>");
  for (const h of s.headline)
    out.push(`<p><b>${esc(h.noun)}</b> (${h.n}: ${h.too_strong} too strong, ${h.not_viable} ` +
      `not viable): strongest ${esc(h.strongest.name)} ${fmt(h.strongest.ratio, 2)}× fair ` +
      `[${fmt(h.strongest.low, 2)}–${fmt(h.strongest.high, 2)}] ` +
      `<span class="${verdictClass(h.strongest.verdict)}">${esc(h.strongest.verdict)}</span>; ` +
      `weakest ${esc(h.weakest.name)} ${fmt(h.weakest.ratio, 2)}× fair ` +
      `[${fmt(h.weakest.low, 2)}–${fmt(h.weakest.high, 2)}] ` +
      `<span class="${verdictClass(h.weakest.verdict)}">${esc(h.weakest.verdict)}</span></p>`);
  out.push(`<p>Field: ${s.field.map((f) => `${esc(f.bot)} ${fmt(f.share, 0)}%`).join(", ")} ` +
    `of seat-games${s.baseline_left_out ? `; baseline bots (${esc(s.baseline_bots.join(", "))}) ` +
    `left out: ${s.baseline_left_out} seat-games` : ""}</p>`);
  out.push(`<h2>Win share per ${esc(s.faction_label)}</h2>`);
  const fair = s.win_shares.length ? s.win_shares[0].fair_share : 0;
  out.push(shareChart(s.win_shares, fair));
  out.push("<table id='shares'><tr><th>" + esc(s.faction_label) + "</th><th>seat-games</th>" +
    "<th>win share % [95% Wilson]</th><th>× fair</th><th>verdict</th></tr>" +
    s.win_shares.map((r) => `<tr><td>${esc(r.name)}</td><td class="num">${r.games}</td>` +
      `<td class="num">${fmt(r.win_share)} [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]</td>` +
      `<td class="num">${fmt(r.ratio, 2)}</td><td class="${verdictClass(r.verdict)}">` +
      `${esc(r.verdict)}</td></tr>`).join("") + "</table>");
  out.push(`<p class="hint">${esc(s.rule)}</p>`);
  out.push("<h2>Seat advantage</h2><table><tr><th>players</th><th>seat</th>" +
    "<th>win share % [95%]</th><th>× fair</th></tr>" + s.seat_advantage.map((r) =>
      `<tr><td>${r.players}</td><td>${r.seat}</td><td class="num">${fmt(100 * r.win_share)} ` +
      `[${fmt(100 * r.ci_low)}, ${fmt(100 * r.ci_high)}]</td><td class="num">${fmt(r.ratio, 2)}` +
      `</td></tr>`).join("") + "</table>");
  out.push("<h2>Game length (rounds)</h2><table><tr><th>players</th><th>games</th>" +
    "<th>mean [95%]</th><th>median</th><th>5th–95th</th></tr>" + s.game_length.map((r) =>
      `<tr><td>${r.players}</td><td class="num">${r.games}</td><td class="num">${fmt(r.mean, 2)} ` +
      `[${fmt(r.mean_low, 2)}, ${fmt(r.mean_high, 2)}]</td><td class="num">${fmt(r.median, 0)}</td>` +
      `<td class="num">${fmt(r.p5, 0)}–${fmt(r.p95, 0)}</td></tr>`).join("") + "</table>");
  $("result").innerHTML = out.join("");
  const tg = $("trace-game");
  tg.addEventListener("input", () => {
    $("trace-link").href = `/api/history/${id}/trace?game=${encodeURIComponent(tg.value)}`;
  });
}

loadScenarios().then(pollQueue).catch((e) => {
  document.body.insertAdjacentHTML("afterbegin", `<p class="error">${esc(e.message)}</p>`);
});
