// report.html's script: the views (tabs), linked highlighting in the kernel panes, the
// module graph (drawn lazily: only the rows in view), the pipeline stepper, and markers
// that tests read: #report-ok (with the number of kernel sections) once the script ran,
// #report-js-error on any error, and with `#selftest` in the address #report-selftest
// after every view, every pipeline step and every fusion cluster was drawn once.
(function () {
  'use strict';
  window.addEventListener('error', function (e) {
    var d = document.createElement('div');
    d.id = 'report-js-error';
    d.textContent = 'script error: ' + e.message;
    document.body.appendChild(d);
  });

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  var SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    return e;
  }

  // ---- views ----
  var tabs = document.querySelectorAll('#views a');
  var views = document.querySelectorAll('section.view');
  var shown = {};
  function show(name) {
    var found = false;
    for (var i = 0; i < views.length; i++) {
      var on = views[i].id === 'view-' + name;
      found = found || on;
      views[i].style.display = on ? '' : 'none';
    }
    if (!found) { return show('overview'); }
    for (var t = 0; t < tabs.length; t++) {
      tabs[t].classList.toggle('active', tabs[t].getAttribute('data-view') === name);
    }
    document.body.setAttribute('data-view', name);
    shown[name] = true;
    if (name === 'graph') { graph.draw(); }
    if (name === 'passes') { stepper.draw(); }
    return name;
  }
  for (var t = 0; t < tabs.length; t++) {
    tabs[t].addEventListener('click', function (e) {
      e.preventDefault();
      var name = this.getAttribute('data-view');
      history.replaceState(null, '', '#view=' + name);
      show(name);
    });
  }

  // ---- kernel panes: linked highlighting, the kernel index ----
  function mark(section, name, on) {
    var all = section.querySelectorAll('[data-n]');
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute('data-n') === name) { all[i].classList.toggle('hl', on); }
    }
  }
  var sections = document.querySelectorAll('section.kernel');
  var index = document.getElementById('kernel-index');
  for (var s = 0; s < sections.length; s++) {
    (function (section) {
      var name = section.getAttribute('data-kernel');
      var li = el('li', { 'data-kernel-index': name });
      var a = el('a', { href: '#' + section.id }, name);
      a.addEventListener('click', function (e) {
        e.preventDefault();
        show('kernels');
        section.scrollIntoView();
      });
      li.appendChild(a);
      index.appendChild(li);
      var items = section.querySelectorAll('[data-n]');
      for (var i = 0; i < items.length; i++) {
        (function (item) {
          var n = item.getAttribute('data-n');
          item.addEventListener('mouseenter', function () { mark(section, n, true); });
          item.addEventListener('mouseleave', function () { mark(section, n, false); });
        })(items[i]);
      }
    })(sections[s]);
  }

  // ---- the module graph ----
  var graph = (function () {
    var dataEl = document.getElementById('module-graph-data');
    var viewport = document.getElementById('module-graph');
    if (!dataEl || !viewport) { return { draw: function () {}, selftest: function () { return 0; }, find: function () {} }; }
    var nodes = JSON.parse(dataEl.textContent).nodes;
    var canvas = viewport.querySelector('.graph-canvas');
    var details = document.getElementById('graph-details');
    var count = document.getElementById('graph-count');
    var ROW = 24, BOX = 460, INDENT = 22, MAXARC = 300;
    var open = {};          // node index -> true when its cluster is expanded
    var rows = [];          // [node, member or -1]
    var rowOf = {};         // 'node' or 'node:member' -> row
    var users = nodes.map(function () { return []; });
    nodes.forEach(function (n, j) { n['in'].forEach(function (i) { users[i].push(j); }); });
    var byName = {};
    nodes.forEach(function (n, j) {
      byName[n.n] = [j, -1];
      (n.fused || []).forEach(function (m, k) { if (!(m.n in byName)) { byName[m.n] = [j, k]; } });
    });
    var selected = null;    // [node, member]
    var lastDrawn = 0;

    function layout() {
      rows = []; rowOf = {};
      nodes.forEach(function (n, j) {
        rowOf[j] = rows.length; rows.push([j, -1]);
        if (open[j] && n.fused) {
          n.fused.forEach(function (m, k) { rowOf[j + ':' + k] = rows.length; rows.push([j, k]); });
        }
      });
      canvas.style.height = (rows.length * ROW + 20) + 'px';
      count.textContent = nodes.length + ' instructions, ' + rows.length + ' rows';
      viewport.setAttribute('data-rows', String(rows.length));
    }
    // Producer rows of a row: entry operands, or inside a cluster its own operands; a fused
    // parameter's producer is the cluster's operand of that number.
    function inputsOf(r) {
      var j = rows[r][0], k = rows[r][1], n = nodes[j];
      if (k < 0) { return n['in'].map(function (i) { return rowOf[i]; }); }
      var m = n.fused[k];
      if (m.p !== undefined) { var o = n['in'][m.p]; return o === undefined ? [] : [rowOf[o]]; }
      return m['in'].map(function (i) { return rowOf[j + ':' + i]; });
    }
    function label(r) {
      var j = rows[r][0], k = rows[r][1], n = nodes[j];
      if (k >= 0) { var m = n.fused[k]; return m.n + ' = ' + m.op + ' ' + m.s; }
      var head = n.fused ? (open[j] ? '▾ ' : '▸ ') : '';
      var what = n.fused ? n.op + ' ' + n.fk + ', ' + n.fused.length + ' fused' : n.op;
      return head + n.n + '  [' + what + ']  ' + n.s;
    }
    function fill(r) {
      var k = rows[r][1], n = nodes[rows[r][0]];
      if (k >= 0) { return '#eef4ff'; }
      return { kernel: '#dbeafe', lib: '#fde7c8', input: '#f1f1f1', free: '#ffffff' }[n.k];
    }
    function draw() {
      if (!rows.length) { layout(); }
      var h = viewport.clientHeight || 600;
      var first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - 5);
      var last = Math.min(rows.length, first + Math.ceil(h / ROW) + 10);
      var top = first * ROW;
      var width = BOX + 40 + MAXARC + 2 * INDENT;
      var g = svg('svg', { width: width, height: (last - first) * ROW + 20, 'class': 'graph-svg' });
      g.style.top = top + 'px';
      var y = function (r) { return (r - first) * ROW + 10 + ROW / 2; };
      var sel = selected ? (selected[1] < 0 ? rowOf[selected[0]] : rowOf[selected[0] + ':' + selected[1]]) : -1;
      // Edges with an end in view; arcs beyond the window are clipped by the viewport.
      for (var r = first; r < last; r++) {
        var ins = inputsOf(r);
        for (var q = 0; q < ins.length; q++) {
          var i = ins[q];
          if (i === undefined) { continue; }
          arc(g, i, r, y, sel);
        }
        if (rows[r][1] < 0) {
          var us = users[rows[r][0]];
          for (var u = 0; u < us.length; u++) {
            var ur = rowOf[us[u]];
            if (ur >= last) { arc(g, r, ur, y, sel); }
          }
        }
      }
      for (var r2 = first; r2 < last; r2++) {
        var k = rows[r2][1];
        var x = 10 + (k >= 0 ? INDENT : 0);
        var grp = svg('g', { 'class': 'gnode' + (r2 === sel ? ' sel' : ''), 'data-row': String(r2) });
        var rect = svg('rect', { x: x, y: y(r2) - ROW / 2 + 2, width: BOX - (k >= 0 ? INDENT : 0), height: ROW - 4,
          rx: 4, fill: fill(r2), stroke: r2 === sel ? '#d97706' : '#999' });
        var text = svg('text', { x: x + 8, y: y(r2) + 4 });
        text.textContent = label(r2);
        grp.appendChild(rect); grp.appendChild(text);
        g.appendChild(grp);
      }
      canvas.textContent = '';
      canvas.appendChild(g);
      lastDrawn = last - first;
      viewport.setAttribute('data-drawn', String(lastDrawn));
    }
    function arc(g, i, r, y, sel) {
      var span = r - i, x = BOX + 14;
      var dx = 14 + Math.min(span * 8, MAXARC);
      var hot = i === sel || r === sel;
      g.appendChild(svg('path', { d: 'M ' + x + ' ' + y(i) + ' C ' + (x + dx) + ' ' + y(i) + ', ' + (x + dx) + ' ' + y(r) + ', ' + x + ' ' + y(r),
        fill: 'none', stroke: hot ? '#d97706' : '#7a8ca5', 'stroke-width': hot ? 2 : 1 }));
    }
    function select(j, k) {
      selected = [j, k];
      var n = nodes[j];
      details.textContent = '';
      details.className = '';
      function link(name, jj, kk) {
        var a = el('a', { href: '#' }, name);
        a.addEventListener('click', function (e) { e.preventDefault(); reveal(jj, kk); });
        return a;
      }
      function line(key, value) {
        var p = el('div'); p.appendChild(el('b', {}, key + ': '));
        if (typeof value === 'string') { p.appendChild(document.createTextNode(value)); } else { value.forEach(function (v, i) { if (i) { p.appendChild(document.createTextNode(', ')); } p.appendChild(v); }); }
        details.appendChild(p);
      }
      if (k >= 0) {
        var m = n.fused[k];
        line('instruction', m.n + ' (' + m.op + ') in ' + n.fc + ', the fused computation of ' + n.n);
        line('shape', m.s);
        line('operands', m.p !== undefined ? [link(nodes[n['in'][m.p]] ? nodes[n['in'][m.p]].n : '?', n['in'][m.p], -1)] : m['in'].map(function (i) { return link(n.fused[i].n, j, i); }));
      } else {
        line('instruction', n.n + ' (' + n.op + (n.fk ? ', ' + n.fk : '') + ')');
        line('shape', n.s);
        line('bytes moved', String(n.bytes));
        line('flops', String(n.flops));
        if (n.buf) { line('buffer', n.buf); }
        line('operands', n['in'].map(function (i) { return link(nodes[i].n, i, -1); }));
        line('users', users[j].map(function (u) { return link(nodes[u].n, u, -1); }));
      }
      draw();
    }
    function reveal(j, k) {
      if (k >= 0 && !open[j]) { open[j] = true; layout(); }
      var r = k >= 0 ? rowOf[j + ':' + k] : rowOf[j];
      viewport.scrollTop = Math.max(0, r * ROW - 100);
      select(j, k);
    }
    canvas.addEventListener('click', function (e) {
      var t = e.target;
      while (t && t !== canvas && !(t.getAttribute && t.getAttribute('data-row'))) { t = t.parentNode; }
      if (!t || t === canvas) { return; }
      var r = Number(t.getAttribute('data-row')), j = rows[r][0], k = rows[r][1];
      if (k < 0 && nodes[j].fused) {
        open[j] = !open[j]; layout();
      }
      select(j, k);
    });
    var pending = false;
    viewport.addEventListener('scroll', function () {
      if (pending) { return; }
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    });
    document.getElementById('graph-search').addEventListener('keydown', function (e) {
      if (e.key !== 'Enter') { return; }
      var hit = byName[this.value.trim().replace(/^%/, '')];
      if (hit) { reveal(hit[0], hit[1]); } else { details.textContent = 'no instruction named ' + this.value; }
    });
    function setAll(on) {
      nodes.forEach(function (n, j) { if (n.fused) { open[j] = on; } });
      layout(); draw();
    }
    document.getElementById('graph-expand').addEventListener('click', function () { setAll(true); });
    document.getElementById('graph-collapse').addEventListener('click', function () { setAll(false); });
    // Every cluster open, the last row revealed and selected, then closed again: returns the
    // most rows drawn at once.
    function selftest() {
      setAll(true);
      var most = lastDrawn;
      viewport.scrollTop = rows.length * ROW;
      draw();
      most = Math.max(most, lastDrawn);
      var lastRow = rows[rows.length - 1];
      if (lastRow) { reveal(lastRow[0], lastRow[1]); }
      most = Math.max(most, lastDrawn);
      setAll(false);
      viewport.scrollTop = 0;
      draw();
      return most;
    }
    // Opens `name`'s cluster (and the cluster of a fusion named so), scrolls to it and selects it.
    function find(name) {
      var hit = byName[name];
      if (!hit) { return; }
      if (hit[1] < 0 && nodes[hit[0]].fused) { open[hit[0]] = true; layout(); }
      reveal(hit[0], hit[1]);
    }
    layout();
    return { draw: draw, selftest: selftest, find: find };
  })();

  // ---- the pipeline stepper ----
  var stepper = (function () {
    var dataEl = document.getElementById('pass-data');
    if (!dataEl) { return { draw: function () {}, count: 0, go: function () {} }; }
    var steps = JSON.parse(dataEl.textContent);
    var list = document.getElementById('pass-list');
    var title = document.getElementById('pass-title');
    var pane = document.getElementById('pass-diff');
    var current = 0;
    steps.forEach(function (st, i) {
      var li = el('li', { 'data-step': String(i) });
      li.appendChild(el('code', {}, st.pass));
      li.appendChild(el('span', { 'class': 'muted' }, ' ' + st.pipeline + ' '));
      li.appendChild(el('span', { 'class': 'del' }, '−' + st.removed));
      li.appendChild(el('span', { 'class': 'add' }, ' +' + st.added));
      li.addEventListener('click', function () { go(i); });
      list.appendChild(li);
    });
    function go(i) {
      current = Math.max(0, Math.min(steps.length - 1, i));
      var st = steps[current];
      var items = list.querySelectorAll('li');
      for (var k = 0; k < items.length; k++) { items[k].classList.toggle('active', k === current); }
      title.textContent = 'step ' + (current + 1) + ' of ' + steps.length + ': after ' + st.pass +
        ' (' + st.pipeline + '): ' + st.removed + ' lines removed, ' + st.added + ' added';
      var frag = document.createDocumentFragment();
      st.lines.forEach(function (l) {
        var cls = { '=': 'same', '-': 'del', '+': 'add', '~': 'fold' }[l[0]];
        var text = l[0] === '~' ? '… ' + l[1] + ' unchanged lines …' : (l[0] === '=' ? ' ' : l[0]) + ' ' + l[1];
        frag.appendChild(el('span', { 'class': 'l ' + cls }, text));
      });
      pane.textContent = '';
      pane.appendChild(frag);
      pane.setAttribute('data-step', String(current));
    }
    document.addEventListener('keydown', function (e) {
      if (document.body.getAttribute('data-view') !== 'passes') { return; }
      if (e.key === 'ArrowRight' || e.key === 'ArrowDown') { go(current + 1); e.preventDefault(); }
      if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') { go(current - 1); e.preventDefault(); }
    });
    return { draw: function () { go(current); }, count: steps.length, go: go };
  })();

  var ok = el('div', { id: 'report-ok', 'data-kernels': String(sections.length), 'class': 'muted' },
    'page script ran: ' + sections.length + ' kernels');
  document.getElementById('status').appendChild(ok);

  var hash = location.hash.replace(/^#/, '');
  if (hash === 'selftest') {
    var visited = 0;
    for (var v = 0; v < tabs.length; v++) {
      var name = tabs[v].getAttribute('data-view');
      if (show(name) === name && document.getElementById('view-' + name).style.display === '') { visited++; }
    }
    for (var st = 0; st < stepper.count; st++) { stepper.go(st); }
    var most = graph.selftest();
    show('overview');
    document.body.appendChild(el('div', { id: 'report-selftest', 'data-views': String(visited),
      'data-tabs': String(tabs.length), 'data-steps': String(stepper.count), 'data-most-rows-drawn': String(most) },
      'self-test: ' + visited + ' views, ' + stepper.count + ' pipeline steps, at most ' + most + ' graph rows drawn'));
  } else {
    // `#view=NAME`, and for the graph `&find=INSTRUCTION`.
    var m = /^view=([a-z]+)/.exec(hash);
    show(m ? m[1] : 'overview');
    var f = /[&]find=([^&]+)/.exec(hash);
    if (f) { graph.find(decodeURIComponent(f[1])); }
  }
})();
