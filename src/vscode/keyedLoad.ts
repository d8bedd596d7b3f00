/**
 * One loaded model at a time, keyed by the settings it was loaded from: the same key returns the
 * same load, a new key disposes the old model and loads again, and a failed load is forgotten so
 * that the next use tries again (after the user fixes the setting, or an export finishes).
 */
export class KeyedLoad<T extends { dispose(): Promise<unknown> }> {
  private loaded: { key: string; value: Promise<T> } | undefined;

  constructor(private readonly onFailure: (err: Error) => void) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    if (this.loaded?.key !== key) {
      this.unload();
      const entry = { key, value: load() };
      this.loaded = entry;
      entry.value.catch((err: Error) => {
        this.onFailure(err);
        if (this.loaded === entry) this.loaded = undefined;
      });
    }
    return this.loaded.value;
  }

  unload(): void {
    const old = this.loaded;
    this.loaded = undefined;
    void old?.value.then((m) => m.dispose()).catch(() => undefined);
  }
}
