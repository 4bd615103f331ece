// chrome.privacy's settings (types.ChromeSetting), as Chromium 156 gives them to an unpacked
// extension with the "privacy" permission: each answers get() with Chromium's default and
// "controllable_by_this_extension"; set() keeps the value ("controlled_by_this_extension") and
// fires onChange; clear() goes back. Privacy Badger reads six of them at start-up and failed on an
// empty answer. wrtui keeps what an extension sets, but it is not the browser: its traffic does not
// follow the setting (the journal says so once). Checked against Chromium 156 (an unpacked probe
// extension; see docs/extensions-and-host.md, "What the code sees").

/** Each setting's value in Chromium 156 before any extension sets it, by group. */
export const PRIVACY_DEFAULTS: Readonly<Record<'network' | 'services' | 'websites', Readonly<Record<string, unknown>>>> = {
  network: { networkPredictionEnabled: true, webRTCIPHandlingPolicy: 'default' },
  services: {
    alternateErrorPagesEnabled: true,
    autofillAddressEnabled: true,
    autofillCreditCardEnabled: true,
    autofillEnabled: true,
    autofillSettings: [],
    passwordSavingEnabled: true,
    safeBrowsingEnabled: true,
    safeBrowsingExtendedReportingEnabled: false,
    searchSuggestEnabled: true,
    spellingServiceEnabled: false,
    translationServiceEnabled: true,
  },
  websites: {
    adMeasurementEnabled: false,
    doNotTrackEnabled: false,
    fledgeEnabled: false,
    hyperlinkAuditingEnabled: true,
    referrersEnabled: true,
    thirdPartyCookiesAllowed: false,
    topicsEnabled: false,
  },
};

export const IP_HANDLING_POLICY = {
  DEFAULT: 'default',
  DEFAULT_PUBLIC_AND_PRIVATE_INTERFACES: 'default_public_and_private_interfaces',
  DEFAULT_PUBLIC_INTERFACE_ONLY: 'default_public_interface_only',
  DISABLE_NON_PROXIED_UDP: 'disable_non_proxied_udp',
} as const;

/** Chromium's words when an extension not allowed in incognito asks for incognito preferences. */
export const NO_INCOGNITO = 'You do not have permission to access incognito preferences.';
/** Chromium's words for details it cannot take (no value, a value of the wrong type). */
export const INVALID_INVOCATION = 'Invalid invocation';

export interface SettingDetails {
  value: unknown;
  levelOfControl: 'controllable_by_this_extension' | 'controlled_by_this_extension';
}

/** A setting's own check and form of a value (a privacy setting's is its default's type). */
export interface SettingKind {
  accepts(value: unknown): boolean;
  /** The value as get() gives it back (Chromium fills in what it defaults). */
  stored(value: unknown): unknown;
}

/** One setting's state, shared by `chrome` and `browser`. */
export class ChromeSetting {
  readonly #fallback: unknown;
  readonly #kind: SettingKind | undefined;
  #value: unknown;
  #controlled = false;

  /** `kind`: how a setting other than a privacy one checks and stores a value (proxy.settings). */
  constructor(fallback: unknown, kind?: SettingKind) {
    this.#fallback = fallback;
    this.#kind = kind;
    this.#value = fallback;
  }

  read(): SettingDetails {
    return { levelOfControl: this.#controlled ? 'controlled_by_this_extension' : 'controllable_by_this_extension', value: structuredClone(this.#value) };
  }

  /** Whether `value` is of this setting's kind (a boolean for a boolean, one of the policies, a list). */
  accepts(value: unknown): boolean {
    if (this.#kind) return this.#kind.accepts(value);
    if (Array.isArray(this.#fallback)) return Array.isArray(value);
    if (typeof this.#fallback === 'string') return (Object.values(IP_HANDLING_POLICY) as unknown[]).includes(value);
    return typeof value === typeof this.#fallback;
  }

  /** Sets it; true when what get() answers changed (onChange then fires). */
  set(value: unknown): boolean {
    const before = JSON.stringify(this.read());
    this.#value = this.#kind ? this.#kind.stored(value) : structuredClone(value);
    this.#controlled = true;
    return JSON.stringify(this.read()) !== before;
  }

  /** Back to Chromium's default; true when what get() answers changed. */
  clear(): boolean {
    const before = JSON.stringify(this.read());
    this.#value = this.#fallback;
    this.#controlled = false;
    return JSON.stringify(this.read()) !== before;
  }
}

/** Whether details ask for the incognito profile (get's `incognito`, set's and clear's incognito scopes). */
export function asksForIncognito(details: unknown): boolean {
  if (typeof details !== 'object' || details === null) return false;
  const { incognito, scope } = details as { incognito?: unknown; scope?: unknown };
  return incognito === true || (typeof scope === 'string' && scope.startsWith('incognito'));
}
