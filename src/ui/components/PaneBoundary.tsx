// A pane that fails to draw says so in its own place and nowhere else: the rest of the screen, the
// keys and the capture behind it go on. Without a boundary a throw in any component ends Ink's
// render, and wrtui with it (the proxy, the paused requests, the cookies not yet saved).
// The failure is told to the App's reporter (PaneFailureContext), which logs it once; the pane
// tries again whenever `resetKey` changes (another request, tab or view, new data).
import { Box } from 'ink';
import { Component, createContext, type ReactNode } from 'react';
import { renderLine } from '../ansi.js';
import { line } from '../detail/styled-line.js';
import { FixedLine } from './FixedLine.js';

/** Told once per failure of a pane (the App logs each distinct one once). */
export type PaneFailureReporter = (pane: string, error: unknown) => void;

export const PaneFailureContext = createContext<PaneFailureReporter>(() => {});

export interface PaneBoundaryProps {
  /** What the pane is, for the log: "detail Rules", "status bar". */
  pane: string;
  width: number;
  height: number;
  /** A new value draws the pane again (the failure may have been this request's, this tab's). */
  resetKey?: unknown;
  children?: ReactNode;
}

interface PaneBoundaryState {
  failure: { error: unknown } | undefined;
  resetKey: unknown;
}

export class PaneBoundary extends Component<PaneBoundaryProps, PaneBoundaryState> {
  static override contextType = PaneFailureContext;
  declare context: PaneFailureReporter;

  override state: PaneBoundaryState = { failure: undefined, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<PaneBoundaryState> {
    return { failure: { error } };
  }

  static getDerivedStateFromProps(props: PaneBoundaryProps, state: PaneBoundaryState): Partial<PaneBoundaryState> | null {
    return props.resetKey === state.resetKey ? null : { failure: undefined, resetKey: props.resetKey };
  }

  override componentDidCatch(error: unknown): void {
    this.context(this.props.pane, error);
  }

  override render(): ReactNode {
    const { failure } = this.state;
    if (!failure) return this.props.children;
    const { width, height } = this.props;
    return (
      <Box flexDirection="column" width={width} height={height}>
        <FixedLine width={width} text={renderLine(line({ text: `this pane failed to draw: ${failureMessage(failure.error)}`, color: 'red' }), width)} />
        {height > 1 && <FixedLine width={width} text={renderLine(line({ text: 'the log (4) has the details; capture goes on', dim: true }), width)} />}
      </Box>
    );
  }
}

/** The first line of what was thrown. */
export function failureMessage(error: unknown): string {
  const text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
  return text.split('\n', 1)[0]!;
}

/**
 * Lines a parent computes for a child pane (to bound its scrolling, say) fail inside the parent's
 * render, out of the child's boundary: computed through this, the failure is handed to the child,
 * which throws it where its boundary catches it (ThrowFailure).
 */
export function computeForPane<T>(compute: () => T, fallback: T): { value: T; failure?: { error: unknown } } {
  try {
    return { value: compute() };
  } catch (error) {
    return { value: fallback, failure: { error } };
  }
}

/** Throws a failure computeForPane caught, inside the pane's boundary. */
export function ThrowFailure({ failure }: { failure: { error: unknown } | undefined }): null {
  if (failure) throw failure.error;
  return null;
}
