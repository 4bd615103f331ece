// Re-renders the component when the TrafficStore notifies (at most ~30 times a second).
import { useSyncExternalStore } from 'react';
import type { TrafficStore } from '../store/traffic-store.js';

export function useStoreVersion(store: TrafficStore): number {
  return useSyncExternalStore(store.subscribe, store.getVersion, store.getVersion);
}
