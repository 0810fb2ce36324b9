package headless_test

import (
	"fmt"
	"time"

	"github.com/gpuarr/gpuarr/internal/headless"
)

// A page's DOM after its scripts ran. It needs a browser, so go test
// compiles this example without running it.
func Example() {
	browser, err := headless.Find()
	if err != nil {
		fmt.Println("no browser:", err)
		return
	}
	dom, err := headless.DumpDOM(browser, "timeline.html", time.Minute)
	fmt.Println(len(dom) > 0, err)
}
