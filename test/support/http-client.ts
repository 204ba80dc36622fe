/** A small JSON client for tests: every call returns status, headers and the parsed body. */
export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export function client(baseUrl: string, apiKey?: string) {
  const call = async <T = any>(method: string, path: string, init: { body?: unknown; raw?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (apiKey !== undefined && headers.authorization === undefined) headers.authorization = `Bearer ${apiKey}`;
    let payload: string | undefined = init.raw;
    if (init.body !== undefined) payload = JSON.stringify(init.body);
    if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: payload, signal: init.signal });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // left as text: the test will say what it got
    }
    return { status: res.status, body, headers: res.headers };
  };
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, { headers }),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('POST', path, { body, headers }),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('PUT', path, { body, headers }),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, { headers }),
    raw: call,
  };
}
