/**
 * The few DOM shapes that page-side functions (Playwright `evaluate`) read. The test project
 * compiles without the DOM library, so these are declared here. A page function is sent to the
 * page as source text and cannot call into this module: it takes the document itself, with
 * `(globalThis as unknown as PageGlobals).document`.
 */
export interface DomElement {
  readonly tagName: string;
  readonly className: string;
  readonly classList: { contains(name: string): boolean };
  readonly textContent: string | null;
  readonly innerText: string;
  readonly inert: boolean;
  getClientRects(): { length: number };
  getBoundingClientRect(): { width: number; height: number };
  getAttribute(name: string): string | null;
  closest(selector: string): DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

export interface DomInput extends DomElement {
  readonly placeholder: string;
  readonly value: string;
}

export interface DomDocument {
  readonly activeElement: DomElement | null;
  /** Settles once the fonts the page asked for have loaded (or failed). */
  readonly fonts: { readonly ready: Promise<unknown> };
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

export interface PageGlobals {
  document: DomDocument;
}
