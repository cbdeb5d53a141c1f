package client

import (
	"context"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// Teams reads the teams the token may see.
func (c *Client) Teams(ctx context.Context) ([]model.Team, error) {
	var resp struct {
		Teams []model.Team `json:"teams"`
	}
	err := c.do(ctx, "GET", nil, &resp, "teams")
	return resp.Teams, err
}

// PutTeam creates or replaces a team (admin).
//
// It returns the server's warnings about the team's quotas (an instance
// type the cluster has no nodes of, a quota larger than the cluster, no
// GPUs): the team is stored all the same.
func (c *Client) PutTeam(ctx context.Context, t model.Team) ([]string, error) {
	var out struct {
		Warnings []string `json:"warnings"`
	}
	err := c.do(ctx, "PUT", t, &out, "teams", t.Name)
	return out.Warnings, err
}

// DeleteTeam deletes a team without live tasks (admin).
func (c *Client) DeleteTeam(ctx context.Context, name string) error {
	return c.do(ctx, "DELETE", nil, nil, "teams", name)
}

// Policy reads the cluster policy, defaults filled.
func (c *Client) Policy(ctx context.Context) (model.Policy, error) {
	var p model.Policy
	err := c.do(ctx, "GET", nil, &p, "policy")
	return p, err
}

// PutPolicy replaces the policy (admin) and returns it as stored.
func (c *Client) PutPolicy(ctx context.Context, p model.Policy) (model.Policy, error) {
	var out model.Policy
	err := c.do(ctx, "PUT", p, &out, "policy")
	return out, err
}

// Nodes lists the nodes.
func (c *Client) Nodes(ctx context.Context) ([]apitypes.Node, error) {
	var resp struct {
		Nodes []apitypes.Node `json:"nodes"`
	}
	err := c.do(ctx, "GET", nil, &resp, "nodes")
	return resp.Nodes, err
}

// NodeAction cordons, uncordons or drains a node (admin).
func (c *Client) NodeAction(ctx context.Context, name, action string) error {
	return c.do(ctx, "POST", nil, nil, "nodes", name, action)
}

// NewToken is an issued token; Token is its secret, shown once.
type NewToken struct {
	Token string `json:"token"`
	ID    string `json:"id"`
	Role  string `json:"role"`
	Team  string `json:"team"`
}

// CreateToken issues a token (admin).
func (c *Client) CreateToken(ctx context.Context, role, team, note string) (NewToken, error) {
	var out NewToken
	err := c.do(ctx, "POST", map[string]string{"role": role, "team": team, "note": note}, &out, "tokens")
	return out, err
}

// Tokens lists tokens, never their secrets (admin).
func (c *Client) Tokens(ctx context.Context) ([]model.Token, error) {
	var resp struct {
		Tokens []model.Token `json:"tokens"`
	}
	err := c.do(ctx, "GET", nil, &resp, "tokens")
	return resp.Tokens, err
}

// RevokeToken revokes a token (admin).
func (c *Client) RevokeToken(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", nil, nil, "tokens", id)
}

// Token is an issued token as listed, never its secret.
type Token = model.Token
