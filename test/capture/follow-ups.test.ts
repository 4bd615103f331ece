// Redirects awaiting the client's follow-up: a keep-alive connection carries many of them, and
// listening for its close must end with each one, claimed or not.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FollowUps } from '../../src/engine/capture/follow-ups.js';
import type { RequestFlight } from '../../src/engine/web-request/lifecycle.js';

describe('follow-ups', () => {
  it('a connection that carries 30 followed redirects is left with no close listener of ours', () => {
    const connection = new EventEmitter();
    const followUps = new FollowUps({ onUnclaimed: () => {} });
    for (let index = 0; index < 30; index++) {
      const flight = { url: `http://a.test/next-${index}`, method: 'GET' } as RequestFlight;
      followUps.expect(flight, 'client', connection);
      expect(followUps.claim(flight.url, 'GET', 'client')).toBe(flight);
    }
    expect(connection.listenerCount('close')).toBe(0);
    expect(followUps.size).toBe(0);
  });

  it('the connection closing ends an unclaimed redirect after the grace, not the whole wait', async () => {
    const connection = new EventEmitter();
    const ended: string[] = [];
    const followUps = new FollowUps({ ttlMs: 10_000, closeGraceMs: 20, onUnclaimed: (flight) => ended.push(flight.url) });
    followUps.expect({ url: 'http://a.test/new', method: 'GET' } as RequestFlight, 'client', connection);
    connection.emit('close');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ended).toEqual(['http://a.test/new']);
    expect(connection.listenerCount('close')).toBe(0);
  });
});
