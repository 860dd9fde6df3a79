#!/usr/bin/env node
'use strict';
// The CLI is bundled by `npm run build` (run by `npm install`): dist/cli.js (a small launcher that
// loads the engine, dist/cliMain.js, when needed) runs itself only as the main module; from here it is started explicitly.
require('../dist/cli.js').run(process.argv.slice(2));
