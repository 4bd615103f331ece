// Where a stuck worker is stuck. A worker whose event loop does not turn cannot say so itself, but
// V8's inspector still answers: the proxy thread attaches to the worker's inspector target
// (NodeWorker domain), asks its debugger to pause, and reads the top frames, which name the
// extension's file and line even inside `while (true) {}`. Then it detaches, so the worker can be
// terminated. The session exists only for this moment; nothing is inspected while workers run.
import inspector from 'node:inspector';

export interface StuckFrame {
  functionName: string;
  url: string;
  /** 1-based */
  line: number;
  column: number;
}

interface ProtocolMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
}

/**
 * The paused worker's call frames, innermost first; [] when they could not be read within
 * `timeoutMs`. Reading takes tens of ms; the budget is for a loaded machine (CI's tests in
 * parallel, a host booting its workers at once), where attaching once took over a second.
 */
export async function stackOfStuckWorker(threadId: number, timeoutMs = 3000): Promise<StuckFrame[]> {
  const session = new inspector.Session();
  try {
    session.connect();
  } catch {
    // Another inspector client owns the process (a debugger is attached): no stack then.
    return [];
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      readFrames(session, threadId),
      new Promise<StuckFrame[]>((resolve) => {
        timer = setTimeout(() => resolve([]), timeoutMs);
      }),
    ]);
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
    session.disconnect();
  }
}

async function readFrames(session: inspector.Session, threadId: number): Promise<StuckFrame[]> {
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

  const attached = new Promise<string>((resolve) => {
    // The inspector numbers workers its own way; their title, "[worker <threadId>] <name>", names the thread.
    session.on('NodeWorker.attachedToWorker', (message: { params: { sessionId: string; workerInfo: { title: string } } }) => {
      if (new RegExp(`^\\[worker ${threadId}\\]`).test(message.params.workerInfo.title)) resolve(message.params.sessionId);
    });
  });
  await post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  const sessionId = await attached;

  const scripts = new Map<string, string>();
  let nextId = 0;
  const frames = new Promise<StuckFrame[]>((resolve) => {
    session.on('NodeWorker.receivedMessageFromWorker', (message: { params: { sessionId: string; message: string } }) => {
      if (message.params.sessionId !== sessionId) return;
      const inner = JSON.parse(message.params.message) as ProtocolMessage;
      if (inner.method === 'Debugger.scriptParsed') {
        scripts.set(String(inner.params!.scriptId), String(inner.params!.url));
      } else if (inner.method === 'Debugger.paused') {
        const callFrames = inner.params!.callFrames as { functionName: string; url: string; location: { scriptId: string; lineNumber: number; columnNumber: number } }[];
        resolve(
          callFrames.map((frame) => ({
            functionName: frame.functionName,
            url: frame.url || scripts.get(frame.location.scriptId) || '',
            line: frame.location.lineNumber + 1,
            column: frame.location.columnNumber + 1,
          })),
        );
      }
    });
  });
  const toWorker = (method: string) =>
    void session.post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id: ++nextId, method }) }, () => {});
  toWorker('Debugger.enable');
  toWorker('Debugger.pause');
  try {
    return await frames;
  } finally {
    session.post('NodeWorker.detach', { sessionId }, () => {});
  }
}
