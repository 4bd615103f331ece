// One journal entry as one line of JSON, as `wrtui headless --json` prints it: the session file's
// encoding (bytes become {"base64": "…"}), so a headless capture reads back like a session file.
export { encodeLine as toJsonLine } from '../engine/session/session-json.js';
