/**
 * The graph panel's HTML: a nonce-based content security policy (no inline code without the
 * nonce, nothing remote: only the webview's own resource origin), the bundled page script and
 * its stylesheet from media/graph/. No `vscode` import, so the page can be tested alone.
 */
export interface GraphHtmlInput {
  /** `webview.cspSource` (or the test page's origin). */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function graphHtml(i: GraphHtmlInput): string {
  const csp = [
    "default-src 'none'",
    `img-src ${i.cspSource} data:`,
    `style-src ${i.cspSource} 'nonce-${i.nonce}'`,
    `font-src ${i.cspSource}`,
    `script-src 'nonce-${i.nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${i.styleUri}" nonce="${i.nonce}">
<title>Sextant graph</title>
</head>
<body>
<header>
  <h1 id="title">Sextant graph</h1>
  <div id="controls">
    <span class="project-only search"><input id="search" type="search" list="project-list" placeholder="Find a project…" aria-label="Find a project"><datalist id="project-list"></datalist><button id="search-go" title="Focus the graph on this project">Go</button></span>
    <label>Depth <select id="depth"><option>1</option><option>2</option><option>3</option><option>4</option><option>5</option></select></label>
    <label>Direction <select id="direction"></select></label>
    <label class="project-only"><input type="checkbox" id="production" checked> production</label>
    <label class="project-only"><input type="checkbox" id="test" checked> test</label>
    <label class="project-only" title="Hide a reference when a longer path already connects the two projects"><input type="checkbox" id="reduce" checked> hide implied references</label>
    <span class="zoom"><button id="zoom-out" title="Zoom out">−</button><button id="fit" title="Show the whole graph">Fit</button><button id="zoom-in" title="Zoom in">+</button></span>
  </div>
  <div id="legend" aria-label="legend">
    <span class="project-only"><i class="sw focus"></i>focus</span>
    <span class="project-only"><i class="sw production"></i>production</span>
    <span class="project-only"><i class="sw test"></i>test</span>
    <span class="project-only" data-cat="partial"><i class="sw partial"></i>partial (not fully evaluated)</span>
    <span class="project-only" data-cat="failed"><i class="sw failed"></i>failed to load</span>
    <span class="project-only" data-cat="excluded"><i class="sw excluded"></i>not indexed (excluded folder)</span>
    <span class="project-only" data-cat="cluster"><i class="sw cluster"></i>folder of projects (click to expand)</span>
    <span class="project-only"><i class="ln reference"></i>references (dependent → dependency)</span>
    <span class="call-only"><i class="sw focus"></i>symbol at the cursor</span>
    <span class="call-only"><i class="ln exact"></i>call (exact)</span>
    <span class="call-only"><i class="ln heuristic"></i>call (heuristic: matched by name)</span>
  </div>
  <div id="summary"></div>
  <div id="details" class="hint"></div>
</header>
<main id="graph" aria-label="graph"></main>
<script nonce="${i.nonce}" src="${i.scriptUri}"></script>
</body>
</html>`;
}

/** 128 bits of randomness, base64 (for the CSP nonce). */
export function makeNonce(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(16)).toString('base64');
}
