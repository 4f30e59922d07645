// GraphiQL from the graphiql package's own build (served by msgx; no CDN), on /graphql.
/* global React, ReactDOM, GraphiQL */
(() => {
  var fetcher = GraphiQL.createFetcher({ url: '/graphql' });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: '# msgx read API (docs/read-api.md)\n{\n  pipeline {\n    backlog\n    headAgeSeconds\n    dead\n    projections { name lag }\n  }\n}\n',
    }),
  );
})();
