// How XMLHttpRequest and FileReader fire their events (runs inside the extension's realm): the
// object's `on<type>` handler, then its listeners; a handler that throws is reported at its
// file:line and the listeners still run.

export function fireWithHandler(target: EventTarget, type: string, EventClass: new (type: string) => Event, onError: (error: unknown, where: string) => void, owner: string): void {
  const event = new EventClass(type);
  const handler = (target as unknown as Record<string, unknown>)[`on${type}`];
  if (typeof handler === 'function') {
    try {
      (handler as (event: Event) => unknown).call(target, event);
    } catch (error) {
      onError(error, `${owner}'s on${type}`);
    }
  }
  target.dispatchEvent(event);
}
