package export_test

import (
	"fmt"
	"log"

	"github.com/hedgesim/hedgesim/export"
	"github.com/hedgesim/hedgesim/scenario"
)

// A scenario's hedge policy as a gRPC service config: field report 1's
// safety check, a copy every second, at most three calls, errors fatal.
func ExampleWrite() {
	sc, err := scenario.Parse("guard.toml", []byte(`
[arrivals]
rate = 20.0

[models.guard]
latency = { kind = "uniform", min = 0.1, max = 19.0 }

[[classes]]
name = "check"
deadline = "3s"
on_timeout = "fail_closed"

[classes.hedge]
delay = "1s"
max_copies = 2
winner = "first_response"
`))
	if err != nil {
		log.Fatal(err)
	}
	out, notes, err := export.Write(export.ScenarioPolicies(&sc.Config), "grpc",
		export.Options{Service: "moderation.v1.Guard", Method: "Check"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(out))
	for _, n := range notes {
		fmt.Println("note:", n)
	}
	// Output:
	// {
	//   "methodConfig": [
	//     {
	//       "name": [
	//         {
	//           "service": "moderation.v1.Guard",
	//           "method": "Check"
	//         }
	//       ],
	//       "timeout": "3s",
	//       "hedgingPolicy": {
	//         "maxAttempts": 3,
	//         "hedgingDelay": "1s",
	//         "nonFatalStatusCodes": []
	//       }
	//     }
	//   ]
	// }
	// note: hedgingPolicy is carried out by grpc-java, grpc-dotnet (Grpc.Net.Client 2.36.0 or later) and grpc-js (@grpc/grpc-js 1.8.0 or later; tested with 1.14.7). grpc-go (checked: v1.85.0) and gRPC C-core (C++, Python, Ruby, PHP) accept it and ignore it: no copy is ever sent, and nothing says so. On grpc-go, hedge in the client instead: --format failsafe-go, with the response type in place of *http.Response, in failsafegrpc.NewUnaryClientInterceptor (failsafe-go v0.9.8)
}
