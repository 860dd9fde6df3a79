#!/usr/bin/env node
'use strict';
// Thin launcher: the engine is bundled into dist/cli.js by `npm run build` (run by `npm install`).
require('../dist/cli.js');
