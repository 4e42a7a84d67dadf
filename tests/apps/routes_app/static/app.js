fetch("/api/hello/browser").then((r) => r.json()).then((b) => {
  document.getElementById("greeting").textContent = b.greeting;
});
