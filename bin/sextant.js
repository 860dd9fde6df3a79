#!/usr/bin/env node
'use strict';
// Thin launcher: the engine is bundled into dist/cli.js by `npm run build` (run by `npm install`).
// dist/cli.js runs itself only as the main module; from here it is started explicitly.
require('../dist/cli.js').run(process.argv.slice(2));
