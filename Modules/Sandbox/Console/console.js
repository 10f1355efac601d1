// Sandbox console: the live request journal, a traffic chart, sockets, chat and the fault controls.
// Everything shown goes through textContent; nothing secret is stored, and no request body is ever logged.
'use strict';

(() => {
  const ROW_H = 20;           // px per journal row; matches --row in console.css
  const OVERSCAN = 10;        // rows rendered above and below the visible ones
  const MAX_ENTRIES = 10000;  // journal entries kept in memory
  const BUCKET_MS = 10000;    // traffic chart: one bar per 10 s…
  const BUCKETS = 30;         // …over 5 minutes
  const SVG_NS = 'http://www.w3.org/2000/svg';

  const $ = (id) => document.getElementById(id);

  // An element with an optional class and text.
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // A table row of cells, each a string or [text, class].
  function tr(cells) {
    const row = el('tr');
    for (const c of cells) row.append(Array.isArray(c) ? el('td', c[1], c[0]) : el('td', '', c));
    return row;
  }

  // An SVG element with attributes, appended to parent.
  function svg(tag, attrs, parent) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (parent) parent.append(e);
    return e;
  }

  const pad = (n, w) => String(n).padStart(w, '0');

  // Milliseconds since the server started as [h:]mm:ss.mmm.
  function fmtTime(ms) {
    const t = Math.max(0, Math.floor(ms || 0));
    const h = Math.floor(t / 3600000), m = Math.floor(t / 60000) % 60, s = Math.floor(t / 1000) % 60;
    const text = `${pad(m, 2)}:${pad(s, 2)}.${pad(t % 1000, 3)}`;
    return h ? `${h}:${text}` : text;
  }

  function fmtLatency(ms) {
    if (typeof ms !== 'number') return '–';
    return ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
  }

  // The CSS class coloring a status by its class (st2…st5).
  const statusClass = (status) => `st${Math.floor(status / 100)}`;

  // ---------------------------------------------------------------- Error line and writes

  function showError(message) {
    const line = $('error');
    line.textContent = message;
    line.hidden = !message;
  }
  $('error').addEventListener('click', () => showError(''));
  $('error').title = 'Click to dismiss';

  // Sends one write to the control plane; shows the answer's text on the error line when it is not 2xx.
  async function send(method, url, body) {
    const init = { method, headers: { 'Content-Type': 'application/json', 'Sandbox-Console': '1' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      if (!res.ok) {
        showError(`${method} ${url} → ${res.status}: ${text.slice(0, 500) || res.statusText}`);
        return false;
      }
      showError('');
      return true;
    } catch (err) {
      showError(`${method} ${url} failed: ${err.message}`);
      return false;
    }
  }

  // ---------------------------------------------------------------- Journal

  const journal = $('journal');                       // the scroll container
  const spacer = journal.querySelector('.spacer');    // full height of every matching row
  const rowsBox = journal.querySelector('.rows');     // the rendered rows, moved to the visible window
  const follow = $('follow');

  let all = [];             // every kept entry, oldest first
  let shown = [];           // the entries matching the filters, oldest first
  let pending = [];         // request events waiting for the next animation frame
  let lastId = -Infinity;   // newest id seen, to skip duplicates around a (re)connection
  let serverDropped = 0;    // entries the server no longer kept when it sent the journal
  let localDropped = 0;     // entries dropped here since
  let pathFilter = '';
  let statusFilter = 'all';
  let selectedId = null;
  let ready = false;
  let frameQueued = false;

  // For browser tests.
  window.sandboxConsole = {
    entries: () => shown.length,
    total: () => all.length,
    get ready() { return ready; },
  };

  function matches(entry) {
    if (pathFilter && !String(entry.path).toLowerCase().includes(pathFilter)) return false;
    if (statusFilter === 'all') return true;
    const cls = Math.floor(entry.status / 100);
    return statusFilter === 'errors' ? cls === 4 || cls === 5 : String(cls) === statusFilter;
  }

  function refilter() {
    shown = pathFilter || statusFilter !== 'all' ? all.filter(matches) : all.slice();
  }

  function makeRow(entry, index) {
    const row = el('div', index % 2 ? 'cols row odd' : 'cols row');
    row.dataset.id = entry.id;
    row.setAttribute('role', 'row');
    row.setAttribute('aria-rowindex', index + 2);
    if (entry.id === selectedId) {
      row.classList.add('selected');
      row.setAttribute('aria-selected', 'true');
    }
    row.title = `${entry.method} ${entry.path}`;
    const cells = [
      [fmtTime(entry.arrivalMs), 'time'], [entry.method, 'method'], [entry.path, 'path'],
      [entry.status ?? '–', `num ${statusClass(entry.status)}`], [entry.tenant ?? '–', entry.tenant ? 'tenant' : 'tenant muted'],
      [fmtLatency(entry.latencyMs), 'num lat'],
    ];
    for (const [text, cls] of cells) {
      const cell = el('span', cls, text);
      cell.setAttribute('role', 'cell');
      row.append(cell);
    }
    return row;
  }

  // Renders only the rows in view (plus a margin) inside a spacer as tall as all of them.
  function render() {
    spacer.style.height = `${shown.length * ROW_H}px`;
    journal.setAttribute('aria-rowcount', shown.length + 1);
    if (follow.checked) journal.scrollTop = journal.scrollHeight;
    const top = journal.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(shown.length, Math.ceil((top + journal.clientHeight) / ROW_H) + OVERSCAN);
    rowsBox.style.transform = `translateY(${first * ROW_H}px)`;
    const fragment = document.createDocumentFragment();
    for (let i = first; i < last; i++) fragment.append(makeRow(shown[i], i));
    rowsBox.replaceChildren(fragment);
  }

  function updateCounts() {
    $('count').textContent = all.length;
    $('dropped').textContent = serverDropped + localDropped;
    $('shown').textContent = shown.length === all.length ? '' : `(${shown.length} of ${all.length} shown)`;
  }

  // Moves the request events of this frame into the journal, dropping the oldest past MAX_ENTRIES.
  function appendPending() {
    const batch = pending;
    pending = [];
    for (const entry of batch) {
      if (entry.id <= lastId) continue;
      lastId = entry.id;
      all.push(entry);
      if (matches(entry)) shown.push(entry);
    }
    if (all.length <= MAX_ENTRIES) return;
    const gone = all.splice(0, all.length - MAX_ENTRIES);
    localDropped += gone.length;
    // shown is an ordered subsequence of all: the dropped ones are at its start.
    let n = 0;
    for (const entry of gone) if (shown[n] === entry) n++;
    if (n) {
      shown.splice(0, n);
      if (!follow.checked) journal.scrollTop -= n * ROW_H;   // keep the same rows in view
    }
  }

  // One frame: new entries in, visible rows redrawn.
  function frame() {
    frameQueued = false;
    if (pending.length) appendPending();
    render();
    updateCounts();
  }

  function schedule() {
    if (frameQueued) return;
    frameQueued = true;
    requestAnimationFrame(frame);
  }

  // event: journal — replaces the whole table.
  function onJournal(data) {
    pending = [];
    all = Array.isArray(data.requests) ? data.requests : [];
    serverDropped = Number(data.dropped) || 0;
    localDropped = 0;
    if (all.length > MAX_ENTRIES) {
      localDropped = all.length - MAX_ENTRIES;
      all = all.slice(-MAX_ENTRIES);
    }
    lastId = all.length ? all[all.length - 1].id : -Infinity;
    refilter();
    render();
    updateCounts();
    ready = true;
  }

  // event: request — queued, appended on the next frame.
  function onRequest(entry) {
    pending.push(entry);
    if (pending.length > MAX_ENTRIES) localDropped += pending.splice(0, pending.length - MAX_ENTRIES).length;
    schedule();
  }

  journal.addEventListener('scroll', () => {
    follow.checked = journal.scrollTop + journal.clientHeight >= journal.scrollHeight - ROW_H / 2;
    schedule();
  });
  follow.addEventListener('change', schedule);
  window.addEventListener('resize', schedule);

  $('filter-path').addEventListener('input', (ev) => {
    pathFilter = ev.target.value.trim().toLowerCase();
    refilter();
    frame();
  });
  $('filter-status').addEventListener('change', (ev) => {
    statusFilter = ev.target.value;
    refilter();
    frame();
  });

  journal.addEventListener('click', (ev) => {
    const row = ev.target.closest('.row');
    if (row) select(Number(row.dataset.id));
  });

  // Up and down arrows move the selection.
  journal.addEventListener('keydown', (ev) => {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    ev.preventDefault();
    if (!shown.length) return;
    const at = shown.findIndex((e) => e.id === selectedId);
    const next = at < 0 ? shown.length - 1 : Math.max(0, Math.min(shown.length - 1, at + (ev.key === 'ArrowDown' ? 1 : -1)));
    const y = next * ROW_H, view = journal.clientHeight - ROW_H;   // the sticky header takes one row
    if (y < journal.scrollTop) journal.scrollTop = y;
    else if (y + ROW_H > journal.scrollTop + view) journal.scrollTop = y + ROW_H - view;
    select(shown[next].id);
  });

  // ---------------------------------------------------------------- Detail pane

  const detailBody = $('detail-body');
  let detailSeq = 0;   // only the latest selection's answer is shown

  async function select(id) {
    selectedId = id;
    schedule();
    const seq = ++detailSeq;
    detailBody.replaceChildren(el('p', 'hint', `Loading request ${id}…`));
    try {
      const res = await fetch(`/_sandbox/requests/${encodeURIComponent(id)}`, { headers: { Accept: 'application/json' } });
      const text = await res.text();
      if (seq !== detailSeq) return;
      if (res.status === 404) detailBody.replaceChildren(el('p', 'hint', `Request ${id} is no longer kept.`));
      else if (!res.ok) detailBody.replaceChildren(el('p', 'hint', `Could not load request ${id}: ${res.status} ${text.slice(0, 300)}`));
      else showDetail(JSON.parse(text));
    } catch (err) {
      if (seq === detailSeq) detailBody.replaceChildren(el('p', 'hint', `Could not load request ${id}: ${err.message}`));
    }
  }

  function showDetail(d) {
    const parts = [el('div', 'title', `${d.method} ${d.path}${d.query ? `?${d.query}` : ''}`)];

    const summary = el('table', 'table');
    const tbody = el('tbody');
    tbody.append(tr(['status', [d.status, statusClass(d.status)]]), tr(['id', d.id]));
    if (d.query) tbody.append(tr(['query', d.query]));
    tbody.append(tr(['body bytes', d.bodyBytes ?? 0]));
    summary.append(tbody);
    parts.push(summary);

    parts.push(el('h4', '', 'Headers'));
    const headers = Object.entries(d.headers || {});
    if (headers.length) {
      const table = el('table', 'table');
      const body = el('tbody');
      for (const [name, value] of headers) body.append(tr([name, Array.isArray(value) ? value.join(', ') : value]));
      table.append(body);
      parts.push(table);
    } else {
      parts.push(el('p', 'hint', 'none'));
    }

    parts.push(el('h4', '', 'Body'));
    if (d.body === null || d.body === undefined) {
      parts.push(el('p', 'hint', d.bodyBytes ? `${d.bodyBytes} bytes, not shown` : 'none'));
    } else {
      const shownBytes = new TextEncoder().encode(d.body).length;
      if (d.bodyBytes > shownBytes) parts.push(el('p', 'hint', `Truncated: the first ${shownBytes} of ${d.bodyBytes} bytes.`));
      parts.push(el('pre', '', pretty(d.body)));
    }
    detailBody.replaceChildren(...parts);
  }

  // JSON bodies indented; anything else (or truncated JSON) as it came.
  function pretty(text) {
    const t = text.trim();
    if (!t.startsWith('{') && !t.startsWith('[')) return text;
    try { return JSON.stringify(JSON.parse(t), null, 2); } catch { return text; }
  }

  // ---------------------------------------------------------------- State: traffic, sockets, chat, faults

  const rendered = {};   // last JSON drawn per panel, to skip unchanged redraws
  function changed(key, value) {
    const json = JSON.stringify(value);
    if (rendered[key] === json) return false;
    rendered[key] = json;
    return true;
  }

  let prevTotals = null;    // Map "status\troute" → total at the previous state event
  let prevUptime = -1;
  const buckets = new Map(); // bucket index (uptime / 10 s) → Map "status\troute" → requests in it

  function onState(s) {
    $('uptime').textContent = fmtTime(s.uptimeMs).slice(0, -4);
    onCounts(Number(s.uptimeMs) || 0, Array.isArray(s.counts) ? s.counts : []);
    if (changed('sockets', s.sockets)) drawSockets(s.sockets || []);
    if (changed('chat', s.chat)) drawChat((s.chat && s.chat.workspaces) || []);
    if (changed('httpFaults', s.httpFaults)) drawFaults(s.httpFaults || []);
    if (changed('socketFaults', s.socketFaults)) drawSocketFaults(s.socketFaults || {});
  }

  // Per-interval deltas from successive totals; the first state event is only the baseline.
  function onCounts(uptimeMs, counts) {
    if (uptimeMs < prevUptime) { buckets.clear(); prevTotals = null; }   // the server restarted
    prevUptime = uptimeMs;
    const index = Math.floor(uptimeMs / BUCKET_MS);
    const totals = new Map(counts.map((c) => [`${c.status}\t${c.route}`, Number(c.count) || 0]));
    if (prevTotals) {
      const bucket = buckets.get(index) || new Map();
      for (const [key, n] of totals) {
        const before = prevTotals.get(key) || 0;
        const delta = n >= before ? n - before : n;   // a smaller total: counters were reset
        if (delta > 0) bucket.set(key, (bucket.get(key) || 0) + delta);
      }
      if (bucket.size) buckets.set(index, bucket);
    }
    prevTotals = totals;
    for (const i of buckets.keys()) if (i <= index - BUCKETS) buckets.delete(i);
    drawChart(index);
    drawTotals(counts);
  }

  // Stacked bars by status class, one per 10 s, the newest at the right.
  function drawChart(index) {
    const W = 300, H = 80, TOP = 10, bar = W / BUCKETS;
    const stacks = [];
    let max = 0;
    for (let i = 0; i < BUCKETS; i++) {
      const stack = { 2: 0, 3: 0, 4: 0, 5: 0 };
      for (const [key, n] of buckets.get(index - BUCKETS + 1 + i) || []) {
        const cls = Math.floor(Number(key.slice(0, key.indexOf('\t'))) / 100);
        if (cls in stack) stack[cls] += n;
      }
      stacks.push(stack);
      max = Math.max(max, stack[2] + stack[3] + stack[4] + stack[5]);
    }
    const root = svg('svg', { viewBox: `0 0 ${W} ${H + 12}`, role: 'img', 'aria-label': `Requests per 10 s over 5 minutes, peak ${max}` });
    stacks.forEach((stack, i) => {
      const g = svg('g', {}, root);
      svg('title', {}, g).textContent =
        `${(BUCKETS - 1 - i) * 10} s ago: 2xx ${stack[2]}, 3xx ${stack[3]}, 4xx ${stack[4]}, 5xx ${stack[5]}`;
      let y = H;
      for (const cls of [2, 3, 4, 5]) {
        if (!stack[cls]) continue;
        const h = (stack[cls] / max) * (H - TOP);
        y -= h;
        svg('rect', { x: i * bar + 0.5, y: y.toFixed(2), width: bar - 1, height: h.toFixed(2), class: `s${cls}` }, g);
      }
    });
    svg('line', { x1: 0, y1: H + 0.5, x2: W, y2: H + 0.5, class: 'axis' }, root);
    svg('text', { x: 0, y: 8 }, root).textContent = `peak ${max} / 10 s`;
    svg('text', { x: 0, y: H + 10 }, root).textContent = '−5 min';
    svg('text', { x: W, y: H + 10, 'text-anchor': 'end' }, root).textContent = 'now';
    $('chart').replaceChildren(root);
  }

  // Totals per route and status since start, and over the chart's 5 minutes.
  function drawTotals(counts) {
    const recent = new Map();
    for (const bucket of buckets.values()) for (const [key, n] of bucket) recent.set(key, (recent.get(key) || 0) + n);
    const sorted = counts.slice().sort((a, b) => (a.route < b.route ? -1 : a.route > b.route ? 1 : a.status - b.status));
    const body = $('totals');
    if (!sorted.length) return body.replaceChildren(emptyRow(4, 'no requests yet'));
    body.replaceChildren(...sorted.map((c) => tr([
      c.route, [c.status, `num ${statusClass(c.status)}`], [c.count, 'num'], [recent.get(`${c.status}\t${c.route}`) || 0, 'num'],
    ])));
  }

  function emptyRow(columns, text) {
    const row = el('tr');
    const cell = el('td', 'muted', text);
    cell.colSpan = columns;
    row.append(cell);
    return row;
  }

  function drawSockets(sockets) {
    $('socket-count').textContent = `(${sockets.length})`;
    const body = $('sockets');
    if (!sockets.length) return body.replaceChildren(emptyRow(4, 'no sockets connected'));
    body.replaceChildren(...sockets.map((s) => tr([
      s.namespace, s.user ? s.user : ['–', 'muted'], (s.rooms || []).join(', ') || ['–', 'muted'], s.id,
    ])));
  }

  function drawChat(workspaces) {
    const list = $('chat');
    if (!workspaces.length) return list.replaceChildren(el('li', 'muted', 'no workspaces'));
    list.replaceChildren(...workspaces.map((w) => {
      const item = el('li', '', w.name);
      item.append(' ', el('small', '', w.id));
      const sub = el('ul');
      for (const c of w.conversations || []) {
        const conv = el('li', '', c.name);
        conv.append(' ', el('small', '', `${c.id} · ${c.messages} message${c.messages === 1 ? '' : 's'}`));
        sub.append(conv);
      }
      if (!sub.children.length) sub.append(el('li', 'muted', 'no conversations'));
      item.append(sub);
      return item;
    }));
  }

  // One line describing an HTTP fault.
  function describeFault(f) {
    const parts = [`#${f.id} ${f.method || 'any'} ${f.route}`];
    if (f.status != null) parts.push(`→ ${f.status}`);
    if (f.rate !== 1) parts.push(`rate ${f.rate}`);
    if (f.latencyMs) parts.push(`+${f.latencyMs} ms`);
    if (f.dropConnectionRate) parts.push(`drop connection ${f.dropConnectionRate}`);
    if (f.dropResponseRate) parts.push(`lose answer ${f.dropResponseRate}`);
    parts.push(f.remaining == null ? 'always' : `${f.remaining} left`);
    return parts.join(' · ');
  }

  function drawFaults(faults) {
    const list = $('faults');
    if (!faults.length) return list.replaceChildren(el('li', 'muted', 'none'));
    list.replaceChildren(...faults.map((f) => {
      const item = el('li', 'fault', describeFault(f));
      item.dataset.id = f.id;
      const remove = el('button', 'fault-remove small', 'remove');
      remove.type = 'button';
      remove.dataset.id = f.id;
      item.append(remove);
      return item;
    }));
  }

  let duplicating = false;   // the server's current duplicate-pushes setting
  function drawSocketFaults(f) {
    duplicating = Boolean(f.duplicate);
    const button = $('socket-duplicate');
    button.setAttribute('aria-pressed', String(duplicating));
    button.textContent = `Duplicate pushes: ${duplicating ? 'on' : 'off'}`;
    const parts = [];
    if (f.silenced) parts.push('silenced');
    if (f.delayMs) parts.push(`delay ${f.delayMs} ms`);
    if (f.duplicate) parts.push('duplicating');
    if (f.reorderMs) parts.push(`reorder within ${f.reorderMs} ms`);
    if (f.loseNext) parts.push(`losing next ${f.loseNext}`);
    $('socket-state').textContent = parts.join(' · ') || 'no faults';
  }

  // ---------------------------------------------------------------- Controls

  $('fault-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const number = (id) => $(id).valueAsNumber;
    const body = {
      route: $('fault-route').value.trim(),
      rate: number('fault-rate'),
      latencyMs: number('fault-latency'),
      dropConnectionRate: number('fault-drop-connection'),
      dropResponseRate: number('fault-drop-response'),
    };
    if ($('fault-method').value) body.method = $('fault-method').value;
    if (!Number.isNaN(number('fault-status'))) body.status = number('fault-status');
    if (!Number.isNaN(number('fault-count'))) body.count = number('fault-count');
    send('POST', '/_sandbox/faults', body);
  });

  $('faults').addEventListener('click', (ev) => {
    const button = ev.target.closest('.fault-remove');
    if (button) send('DELETE', `/_sandbox/faults/${encodeURIComponent(button.dataset.id)}`);
  });
  $('faults-clear').addEventListener('click', () => send('DELETE', '/_sandbox/faults'));

  const socketFaults = '/_sandbox/socketio/faults';
  $('socket-drop').addEventListener('click', () => send('POST', socketFaults, { drop: true }));
  $('socket-duplicate').addEventListener('click', () => send('POST', socketFaults, { duplicate: !duplicating }));
  $('socket-clear').addEventListener('click', () => send('DELETE', socketFaults));
  // Buttons that send the number beside them.
  for (const [button, input, key] of [
    ['socket-silence', 'socket-silence-ms', 'silenceMs'], ['socket-delay', 'socket-delay-ms', 'delayMs'],
    ['socket-reorder', 'socket-reorder-ms', 'reorderMs'], ['socket-lose', 'socket-lose-count', 'loseNext'],
  ]) {
    $(button).addEventListener('click', () => {
      const field = $(input);
      if (field.reportValidity()) send('POST', socketFaults, { [key]: field.valueAsNumber });
    });
  }

  $('expire-tokens').addEventListener('click', () => send('POST', '/_sandbox/expire-tokens', {}));
  $('reset').addEventListener('click', () => {
    if (confirm('Reset the Sandbox to its initial state? Its users, sessions, chat, journal, counts and socket faults are cleared; HTTP faults stay.')) {
      send('POST', '/_sandbox/reset', {});
    }
  });

  // ---------------------------------------------------------------- Live stream

  function setBadge(text, cls) {
    const badge = $('connection');
    badge.textContent = text;
    badge.className = `badge ${cls}`;
  }

  // Parses an event's data and hands it on; a malformed event shows on the error line.
  function listen(source, type, handler) {
    source.addEventListener(type, (ev) => {
      setBadge('live', 'live');
      try {
        handler(JSON.parse(ev.data));
      } catch (err) {
        showError(`Could not read a “${type}” event: ${err.message}`);
      }
    });
  }

  let retryTimer = 0;
  function connect() {
    const source = new EventSource('/_sandbox/console/stream');
    setBadge('connecting…', '');
    source.addEventListener('open', () => setBadge('live', 'live'));
    source.addEventListener('error', () => {
      setBadge('disconnected — retrying', 'down');
      // EventSource retries by itself, except after an HTTP error answer: then retry here.
      if (source.readyState === EventSource.CLOSED) {
        clearTimeout(retryTimer);
        retryTimer = setTimeout(connect, 3000);
      }
    });
    listen(source, 'journal', onJournal);
    listen(source, 'request', onRequest);
    listen(source, 'state', onState);
  }

  drawChart(0);
  drawTotals([]);
  drawSockets([]);
  drawChat([]);
  drawFaults([]);
  render();
  connect();
})();
