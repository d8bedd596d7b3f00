/** Messages of the model playground ("Try the Model"): a prompt in, tokens streamed out. */
export interface PlaygroundResult {
  text: string;
  tokens: number;
  tokensPerSecond: number;
  timeToFirstTokenMs: number;
}

export interface PlaygroundHost {
  requests: {
    generate: {
      params: { prompt: string; maxTokens: number; temperature: number };
      result: PlaygroundResult;
    };
    cancel: { params: null; result: null };
  };
  events: {
    token: { text: string };
    model: { name: string; device: string; backend: string };
  };
}

export interface PlaygroundView {
  requests: Record<string, never>;
  events: Record<string, never>;
}
