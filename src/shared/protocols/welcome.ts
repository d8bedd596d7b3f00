/** Messages of the Welcome panel. */
export interface WelcomeStatus {
  version: string;
  modelState: string;
  modelDetail: string;
  workspaceTrusted: boolean;
}

export interface WelcomeHost {
  requests: {
    status: { params: null; result: WelcomeStatus };
    run: { params: { command: string }; result: null };
  };
  events: { status: WelcomeStatus };
}

export interface WelcomeView {
  requests: Record<string, never>;
  events: Record<string, never>;
}
