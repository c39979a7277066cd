/// The report's inline stylesheet and script: no external resources, so the page works from `file://` offline.
enum HTMLAssets {
    static let style = """
        :root{--ink:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#f8fafc;--card:#fff;--good:#15803d;--good-bg:#dcfce7;
        --bad:#b91c1c;--bad-bg:#fee2e2;--flat:#475569;--flat-bg:#f1f5f9;--accent:#2563eb;--sub:#b45309;--sub-bg:#fef3c7;
        --del:#b91c1c;--del-bg:#fee2e2;--ins:#6d28d9;--ins-bg:#ede9fe;--boost:#1d4ed8;--boost-bg:#dbeafe}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",
        Inter,Roboto,"Helvetica Neue",Arial,sans-serif;font-variant-numeric:tabular-nums}
        header.top{background:#0f172a;color:#f8fafc;padding:28px 0 22px}
        .wrap{max-width:1180px;margin:0 auto;padding:0 28px}
        .partial-banner{background:var(--sub-bg);color:var(--sub);border-bottom:2px solid var(--sub);padding:12px 0;
        font-weight:600}
        .brand{font-size:12px;letter-spacing:.14em;text-transform:uppercase;color:#93c5fd;font-weight:600}
        h1{margin:4px 0 6px;font-size:28px;font-weight:650;letter-spacing:-.01em}
        .meta{color:#cbd5e1;margin:0;font-size:13px}
        .badges{margin-top:14px;display:flex;gap:8px;flex-wrap:wrap}
        .badge{display:inline-flex;align-items:center;gap:6px;border-radius:999px;padding:3px 11px;font-size:12.5px;
        font-weight:600;background:#1e293b;color:#e2e8f0;border:1px solid #334155}
        .badge.ok{background:#14532d;border-color:#166534;color:#dcfce7}.badge.fail{background:#7f1d1d;border-color:#991b1b;color:#fee2e2}
        nav.toc{position:sticky;top:0;z-index:5;background:rgba(255,255,255,.92);backdrop-filter:blur(6px);border-bottom:1px solid var(--line)}
        nav.toc .wrap{display:flex;gap:20px;height:42px;align-items:center;overflow-x:auto}
        nav.toc a{color:var(--muted);text-decoration:none;font-weight:600;font-size:13px;white-space:nowrap}
        nav.toc a:hover{color:var(--accent)}
        main{padding:8px 0 48px}
        section{margin-top:30px}
        h2{font-size:19px;margin:0 0 12px;font-weight:650;letter-spacing:-.005em}
        h3{font-size:15px;margin:0;font-weight:650}
        .card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;
        box-shadow:0 1px 2px rgba(15,23,42,.04);margin-bottom:16px}
        .card-head{display:flex;align-items:baseline;gap:10px;flex-wrap:wrap;margin-bottom:10px}
        .sub{color:var(--muted);font-size:12.5px}
        .tag{font-size:11px;font-weight:650;text-transform:uppercase;letter-spacing:.06em;border-radius:4px;padding:1px 7px}
        .tag.domain{background:var(--boost-bg);color:var(--boost)}.tag.anti{background:#ffedd5;color:#9a3412}
        .tag.private{background:#f3e8ff;color:#7e22ce}
        .causes{display:flex;gap:8px;flex-wrap:wrap;margin:6px 0 12px}.diag-sentence{margin:4px 0}
        .cause{font-size:12px;font-weight:600;border-radius:4px;padding:1px 7px;white-space:nowrap}
        .cause.unpronounceable{background:var(--del-bg);color:var(--del)}
        .cause.language-model{background:var(--good-bg);color:var(--good)}
        .cause.pruned{background:var(--boost-bg);color:var(--boost)}
        .cause.acoustics{background:var(--sub-bg);color:var(--sub)}
        .cause.undetermined{background:var(--flat-bg);color:var(--flat)}
        .diag-utts{margin-top:12px}.diag-utts summary{cursor:pointer;color:var(--accent)}
        .diag-utt{border-top:1px solid var(--line);padding:8px 0}.diag-utt ul{margin:4px 0 0;padding-left:20px}
        table{border-collapse:collapse;width:100%;font-size:13px}
        th{text-align:left;font-weight:600;color:var(--muted);font-size:11.5px;text-transform:uppercase;letter-spacing:.04em;
        border-bottom:1px solid var(--line);padding:6px 10px}
        td{border-bottom:1px solid #f1f5f9;padding:7px 10px;vertical-align:top}
        tr:last-child td{border-bottom:0}
        td.num,th.num{text-align:right;white-space:nowrap}
        td .from{display:block;color:var(--muted);font-size:11.5px}
        .delta{display:inline-block;border-radius:5px;padding:1px 7px;font-weight:650}
        .delta.better{background:var(--good-bg);color:var(--good)}.delta.worse{background:var(--bad-bg);color:var(--bad)}
        .delta.flat{background:var(--flat-bg);color:var(--flat)}
        .ci{display:block;color:var(--muted);font-size:11.5px}
        .sig{color:var(--ink);font-weight:700}
        .swatch{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:7px;vertical-align:-1px}
        .checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:10px}
        .check{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--good);border-radius:8px;padding:10px 14px}
        .check.failed{border-left-color:var(--bad);background:#fffafa}
        .check .name{font-weight:650}.check .icon{font-weight:800;margin-right:6px}
        .check.passed .icon{color:var(--good)}.check.failed .icon{color:var(--bad)}.check.skipped{opacity:.7}
        .check.warning{border-left-color:var(--sub)}.check.warning .icon{color:var(--sub)}
        .check .msg{color:var(--muted);font-size:12.5px;margin-top:2px}
        .check .nums{font-size:12px;margin-top:4px;color:var(--ink)}
        .attention{display:grid;gap:5px;margin-bottom:12px}
        .attention .check{padding:6px 12px}
        .attention .check .name{display:inline;margin-right:8px}
        .attention .check .msg{display:inline;color:var(--ink);font-size:12.5px}
        .attention .check .nums{display:none}
        .check-groups{display:grid;gap:6px}
        .check-group{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--good);border-radius:8px}
        .check-group>summary{cursor:pointer;padding:8px 14px;font-weight:600;list-style-position:inside}
        .check-group .icon{font-weight:800;margin-right:6px;color:var(--good)}
        .check-group.failed{border-left-color:var(--bad)}.check-group.failed .icon{color:var(--bad)}
        .check-group.warning{border-left-color:var(--sub)}.check-group.warning .icon{color:var(--sub)}
        .check-group.skipped{opacity:.7}.check-group.skipped .icon{color:var(--muted)}
        .check-group>.checks{padding:4px 14px 12px}
        a.badge{text-decoration:none}
        .grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:16px}
        .grid2 .card{margin:0}.grid2 .card.wide{grid-column:1/-1}
        .multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:12px 18px}
        svg.chart{width:100%;height:auto;display:block;font-family:inherit}
        svg .grid{stroke:#eef2f7;stroke-width:1}svg .axis{stroke:#cbd5e1}svg .zero{stroke:#94a3b8;stroke-width:1.2}
        svg .tick{fill:#64748b;font-size:10.5px}svg .label{fill:#0f172a;font-size:11.5px;font-weight:600}
        svg .value{fill:#334155;font-size:10px}svg .recommended{stroke:#0f172a;stroke-dasharray:4 3}
        .legend{display:flex;gap:14px;flex-wrap:wrap;font-size:12px;color:var(--muted);margin-top:8px}
        .legend i{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:5px;vertical-align:-1px}
        .filters{display:flex;gap:14px;align-items:center;flex-wrap:wrap;margin-bottom:12px;font-size:13px}
        .filters select{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px;background:#fff}
        .filters label{display:inline-flex;gap:6px;align-items:center;color:var(--ink)}
        .keys{display:flex;gap:12px;font-size:12px;color:var(--muted);margin-left:auto;flex-wrap:wrap}
        .utt{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin-bottom:10px}
        .utt[hidden]{display:none}
        .utt-head{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin-bottom:6px}
        .utt-head .id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;font-weight:600}
        .utt audio{height:30px;margin-left:auto;max-width:300px}
        .utt .withheld{margin-left:auto;color:var(--muted);font-size:12.5px;font-style:italic}
        .line{display:grid;grid-template-columns:130px 64px 1fr;gap:10px;align-items:baseline;padding:3px 0;border-top:1px dashed #f1f5f9}
        .line:first-of-type{border-top:0}
        .line .who{font-size:12px;font-weight:600;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
        .line .wer{font-size:12px;color:var(--muted);text-align:right}
        .words{font-size:14.5px;line-height:1.9}
        .w{padding:1px 2px;border-radius:3px}
        .w.b{background:var(--boost-bg);color:var(--boost);font-weight:600}
        .op{border-radius:3px;padding:1px 4px;margin:0 1px}
        .op.s{background:var(--sub-bg);color:var(--sub)}.op.s s{opacity:.55;margin-right:4px;font-size:.88em}
        .op.d{background:var(--del-bg);color:var(--del)}.op.i{background:var(--ins-bg);color:var(--ins)}
        .op.b{box-shadow:inset 0 -2px 0 var(--boost)}
        .failed-note{color:var(--bad);font-weight:600;font-size:12.5px}
        dl.run{display:grid;grid-template-columns:220px 1fr;gap:6px 16px;margin:0;font-size:13px}
        dl.run dt{color:var(--muted)}dl.run dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
        font-size:12.5px;word-break:break-all}
        footer{color:var(--muted);font-size:12px;text-align:center;padding:24px 0 36px}
        .note{color:var(--muted);font-size:12.5px;margin:8px 0 0}
        table.sortable{margin-top:12px;table-layout:fixed}
        table.sortable th:nth-child(1){width:24%}table.sortable th:nth-child(2){width:18%}
        table.sortable th{cursor:pointer;user-select:none}
        table.sortable th:hover{color:var(--accent)}
        table.sortable th[aria-sort=ascending]::after{content:" ▲";font-size:9px}
        table.sortable th[aria-sort=descending]::after{content:" ▼";font-size:9px}
        """

    static let script = """
        (function () {
          var corpus = document.getElementById('f-corpus');
          var term = document.getElementById('f-term');
          var errors = document.getElementById('f-errors');
          var changed = document.getElementById('f-changed');
          var count = document.getElementById('f-count');
          var items = Array.prototype.slice.call(document.querySelectorAll('.utt'));
          function apply() {
            var shown = 0;
            items.forEach(function (item) {
              var ok = (!corpus.value || item.dataset.corpus === corpus.value) &&
                (!term.value || item.dataset.terms.indexOf('|' + term.value + '|') >= 0) &&
                (!errors.checked || item.dataset.errors === '1') &&
                (!changed.checked || item.dataset.changed === '1');
              item.hidden = !ok;
              if (ok) { shown += 1; }
            });
            count.textContent = shown + ' of ' + items.length + ' utterances';
          }
          [corpus, term, errors, changed].forEach(function (control) {
            control.addEventListener('change', apply);
          });
          apply();
          // Sortable tables: a cell's data-sort is its numeric value ("" for no data, always last); other cells
          // sort as text. Ties keep the rendered order (data-order).
          Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
            var headers = Array.prototype.slice.call(table.querySelectorAll('thead th'));
            headers.forEach(function (header, column) {
              header.addEventListener('click', function () {
                var descending = header.getAttribute('aria-sort') === 'ascending';
                headers.forEach(function (other) { other.removeAttribute('aria-sort'); });
                header.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
                var body = table.tBodies[0];
                var rows = Array.prototype.slice.call(body.rows);
                function key(row) {
                  var cell = row.cells[column];
                  if (!cell.hasAttribute('data-sort')) { return cell.textContent; }
                  var text = cell.getAttribute('data-sort');
                  return text === '' ? null : parseFloat(text);
                }
                rows.sort(function (a, b) {
                  var x = key(a), y = key(b);
                  if (x === null || y === null) {
                    if (x !== y) { return x === null ? 1 : -1; }
                  } else if (x !== y) {
                    var order = typeof x === 'number' ? x - y : x.localeCompare(y);
                    return descending ? -order : order;
                  }
                  return a.dataset.order - b.dataset.order;
                });
                rows.forEach(function (row) { body.appendChild(row); });
              });
            });
          });
          document.body.dataset.ready = '1';
        })();
        """
}
