// Loaded with --import into `wrtui headless` by bench/tui.ts: the same in-process probe the TUI
// runs with WRTUI_PERF_LOG (event-loop lag, RSS), so the two modes are measured alike.
import { PERF_LOG_ENV, startPerfProbe } from '../../src/ui/perf-probe.js';

const file = process.env[PERF_LOG_ENV];
if (file) startPerfProbe({ file, label: 'headless' });
