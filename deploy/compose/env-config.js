// Terrakube's web UI reads these at run time (mounted over /usr/share/nginx/html/env-config.js).
window._env_ = {
  REACT_APP_TERRAKUBE_API_URL: 'http://localhost:8080/api/v1/', // Stratum's /api/v1, as the browser reaches it
  REACT_APP_AUTHORITY: 'http://dex.localhost:5556/dex', // = STRATUM_OIDC_ISSUER
  REACT_APP_CLIENT_ID: 'terrakube-app', // = STRATUM_OIDC_AUDIENCE (Dex's access tokens name the client)
  REACT_APP_REDIRECT_URI: 'http://localhost:3000', // the UI's own address, a redirect URI of the client in dex.yaml
  REACT_APP_REGISTRY_URI: 'http://localhost:8080', // the private registry: Stratum serves it on its own origin
  REACT_APP_SCOPE: 'email openid profile offline_access groups',
  REACT_APP_TERRAKUBE_SEND_COOKIES: 'false',
};
