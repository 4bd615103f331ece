// chrome.alarms of one extension, on the proxy thread: alarms outlive a restarted worker (Chrome
// wakes the service worker for them) and are cleared when the extension is reloaded (an update).
// Chrome throttles alarms to one per 30 s for packed extensions; wrtui is a development tool
// running unpacked code, and Chrome does not hold unpacked extensions to that minimum either, so
// any delay is honoured.

export interface Alarm {
  name: string;
  /** Epoch ms. */
  scheduledTime: number;
  periodInMinutes?: number;
}

interface Scheduled {
  alarm: Alarm;
  timer: NodeJS.Timeout;
}

export class AlarmScheduler {
  readonly #alarms = new Map<string, Scheduled>();
  readonly #fire: (alarm: Alarm) => void;
  readonly #now: () => number;

  constructor(fire: (alarm: Alarm) => void, now: () => number = Date.now) {
    this.#fire = fire;
    this.#now = now;
  }

  /** alarms.<method>(...args), as the worker called it. */
  handle(method: string, args: unknown[]): unknown {
    switch (method) {
      case 'create': {
        const [name, info] = typeof args[0] === 'string' || args.length > 1 ? [String(args[0] ?? ''), args[1]] : ['', args[0]];
        this.create(name, info);
        return undefined;
      }
      case 'get':
        return this.#alarms.get(String(args[0] ?? ''))?.alarm;
      case 'getAll':
        return [...this.#alarms.values()].map((scheduled) => scheduled.alarm);
      case 'clear':
        return this.clear(String(args[0] ?? ''));
      case 'clearAll': {
        const any = this.#alarms.size > 0;
        this.clearAll();
        return any;
      }
      default:
        throw new Error(`alarms.${method} is not supported`);
    }
  }

  create(name: string, info: unknown): void {
    if (typeof info !== 'object' || info === null) throw new TypeError('alarms.create needs alarmInfo: { when?, delayInMinutes?, periodInMinutes? }');
    const { when, delayInMinutes, periodInMinutes } = info as Record<string, unknown>;
    for (const [key, value] of Object.entries({ when, delayInMinutes, periodInMinutes })) {
      if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) throw new TypeError(`alarmInfo.${key} must be a non-negative number`);
    }
    if (when !== undefined && delayInMinutes !== undefined) throw new TypeError('alarmInfo: give "when" or "delayInMinutes", not both');
    const delayMs = when !== undefined ? Math.max(0, (when as number) - this.#now()) : ((delayInMinutes ?? periodInMinutes ?? 0) as number) * 60_000;
    this.clear(name);
    const alarm: Alarm = { name, scheduledTime: this.#now() + delayMs, ...(periodInMinutes !== undefined && { periodInMinutes: periodInMinutes as number }) };
    this.#schedule(alarm, delayMs);
  }

  clear(name: string): boolean {
    const scheduled = this.#alarms.get(name);
    if (!scheduled) return false;
    clearTimeout(scheduled.timer);
    this.#alarms.delete(name);
    return true;
  }

  clearAll(): void {
    for (const scheduled of this.#alarms.values()) clearTimeout(scheduled.timer);
    this.#alarms.clear();
  }

  #schedule(alarm: Alarm, delayMs: number): void {
    const timer = setTimeout(() => {
      if (alarm.periodInMinutes !== undefined) {
        const periodMs = alarm.periodInMinutes * 60_000;
        this.#schedule({ ...alarm, scheduledTime: this.#now() + periodMs }, periodMs);
      } else {
        this.#alarms.delete(alarm.name);
      }
      this.#fire(alarm);
    }, Math.min(delayMs, 2 ** 31 - 1));
    timer.unref();
    this.#alarms.set(alarm.name, { alarm, timer });
  }
}
