package render

// RunProbe is for TestMain, in package render_test.
var RunProbe = runProbe
