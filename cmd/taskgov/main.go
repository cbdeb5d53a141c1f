package main
import (_ "go.yaml.in/yaml/v3"; _ "github.com/spf13/cobra")
func main(){}
