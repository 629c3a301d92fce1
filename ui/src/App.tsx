import { useEffect, useState } from 'react';

interface ApiDescription {
  info: { title: string; version: string };
  paths: Record<string, unknown>;
}

/** The appliance's front page until the admin portal lands: what is running and where to go. */
export function App() {
  const [api, setApi] = useState<ApiDescription | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    fetch('/v1/openapi.json')
      .then((res) => (res.ok ? (res.json() as Promise<ApiDescription>) : Promise.reject(new Error(String(res.status)))))
      .then(setApi, () => setFailed(true));
  }, []);

  const base = `${window.location.origin}/v1`;
  return (
    <main className="page">
      <h1>CampusBridge</h1>
      <p className="lead">This computer runs your institution integration appliance.</p>
      <section aria-label="API">
        <h2>Connect your LMS</h2>
        <dl>
          <dt>API base URL</dt>
          <dd>
            <code>{base}</code>
          </dd>
          <dt>API reference</dt>
          <dd>
            <a href="/v1/docs">{base}/docs</a>
            {api ? ` (version ${api.info.version}, ${Object.keys(api.paths).length} paths)` : failed ? ' (unreachable)' : ''}
          </dd>
        </dl>
        <p>
          Create an API key with <code>npm run -s cli -- key create --institution &lt;id&gt; --name &lt;label&gt; --scopes &lt;list&gt;</code>.
        </p>
      </section>
    </main>
  );
}
